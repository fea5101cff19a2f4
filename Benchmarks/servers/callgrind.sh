#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# User-space instructions per echoed message of each server, counted by callgrind: a figure that
# does not move with the load on the machine, unlike the rates of compare.sh (which it complements:
# the kernel's share of the work, about four fifths at 100 connections, is not counted here).
#
#   Benchmarks/servers/callgrind.sh [CONNS=100] [KINDS...]
#
# KINDS are `lws` and `websocket-bench serve-echo` kinds (default: lws and every kind), and `uws`, the
# optional uWebSockets anchor (issue 28), only when named, with UWS_ECHO the path of a uws-echo binary
# (docs/performance.md, "uWebSockets as an anchor"): `UWS_ECHO=.build/servers/uws-echo
# Benchmarks/servers/callgrind.sh 100 lws uws loop-handler`. For each, the
# server runs under `valgrind --tool=callgrind`; wsload (on CPU 1 when there are two) opens CONNS
# connections and ping-pongs 256 B binary messages for 2 s (warm-up: start-up, first handshakes),
# then the counters are zeroed, a second wsload run of 8 s follows (CONNS handshakes, then
# ping-pong), the counters are dumped, and the count is divided by the messages that run echoed.
# The handshakes of the measured run are included (under 1 % of it at 100 connections).
#
# With CALLGRIND_WORKLOAD=handshakes, the cost of a whole connection instead: wsload runs handshake
# cycles, CONNS in parallel (open, Close, close; `wsload handshakes --parallel CONNS`), and the count
# is divided by the connections the server closed in the measured run, its calls of the C library's
# close() (one per connection for each server here), which does not depend on where wsload's count of
# cycles and the dump's window meet: `CALLGRIND_WORKLOAD=handshakes Benchmarks/servers/callgrind.sh 16
# loop-lending`.
#
# With CALLGRIND_WORKLOAD=pipeline, one connection keeps CONNS messages in flight (`wsload pipeline
# --conns 1 --depth CONNS --size 256`), and the count is divided by the messages echoed: the cost per
# message when each read and write carries many (`CALLGRIND_WORKLOAD=pipeline
# Benchmarks/servers/callgrind.sh 64 uws loop-lending`).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=common.sh
. "$here/common.sh"

conns="${1:-100}"
if ! [[ $conns =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: callgrind.sh [CONNS=100] [KINDS...]" >&2
    exit 2
fi
shift $(($# < 1 ? $# : 1))
for kind in "$@"; do  # before anything is built
    if [[ $kind == uws ]]; then uws_anchor callgrind.sh; fi
done
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
command -v callgrind_control >/dev/null || { echo "callgrind.sh: callgrind_control is missing" >&2; exit 2; }

track_processes
build_tools "$root"
# valgrind 3.19 cannot read Swift 6.3's DWARF 5: a copy stripped of debug info (the same code).
cp "$echo_server" "$work/bench"
strip --strip-debug "$work/bench"

if (($# > 0)); then kinds=("$@"); else mapfile -t kinds < <(echo lws; "$echo_server" serve-echo --list); fi
load_cpu=()
if command -v taskset >/dev/null 2>&1 && (($(nproc) >= 2)); then load_cpu=(taskset -c 1); fi
port=$((24000 + RANDOM % 4000))

workload="${CALLGRIND_WORKLOAD:-pingpong}"
case $workload in
    pingpong)
        load=(pingpong --conns "$conns" --size 256)
        echo "| server | messages echoed (8 s under callgrind) | user-space instructions per message |" ;;
    handshakes)
        load=(handshakes --parallel "$conns")
        echo "| server | connections closed (8 s under callgrind) | user-space instructions per connection |" ;;
    pipeline)
        load=(pipeline --conns 1 --depth "$conns" --size 256)
        echo "| server | messages echoed (8 s under callgrind) | user-space instructions per message |" ;;
    *) echo "callgrind.sh: CALLGRIND_WORKLOAD is pingpong, handshakes or pipeline" >&2; exit 2 ;;
esac
echo "| --- | --- | --- |"

# closes DUMP: the calls of the C library's close() in a callgrind dump (a function is named in full
# at its first mention, by number after).
closes() {
    python3 - "$1" <<'PY'
import re, sys
names, calls, callee = {}, 0, None
for line in open(sys.argv[1]):
    m = re.match(r"(c?)fn=\((\d+)\)(?: (.*))?", line)
    if m:
        if m.group(3): names[m.group(2)] = m.group(3).strip()
        if m.group(1): callee = names.get(m.group(2))
        continue
    m = re.match(r"calls=(\d+)", line)
    if m and callee == "close": calls += int(m.group(1))
print(calls)
PY
}
for kind in "${kinds[@]}"; do
    port=$((port + 1))
    out="$work/callgrind.$kind"
    if [[ $kind == lws ]]; then
        valgrind --tool=callgrind --callgrind-out-file="$out" "$lws_echo" "$port" >"$work/server.out" 2>"$work/server.err" &
    elif [[ $kind == uws ]]; then
        valgrind --tool=callgrind --callgrind-out-file="$out" "$uws_echo" "$port" >"$work/server.out" 2>"$work/server.err" &
    else
        valgrind --tool=callgrind --callgrind-out-file="$out" "$work/bench" serve-echo "$kind" --port "$port" \
            >"$work/server.out" 2>"$work/server.err" &
    fi
    server_pid=$!
    for _ in $(seq 300); do
        grep -q '^listening' "$work/server.out" && break
        kill -0 "$server_pid" 2>/dev/null || { echo "callgrind.sh: $kind did not start: $(cat "$work/server.err")" >&2; exit 1; }
        sleep 0.1
    done
    "${load_cpu[@]}" "$wsload" "${load[@]}" --port "$port" --seconds 2 >/dev/null
    callgrind_control -z "$server_pid" >/dev/null 2>&1
    line="$("${load_cpu[@]}" "$wsload" "${load[@]}" --port "$port" --seconds 8 | tail -n 1)"
    callgrind_control -d "$server_pid" >/dev/null 2>&1
    stop_process "$server_pid"
    server_pid=""
    errors="$(sed -n 's/.* errors=\([0-9]*\).*/\1/p' <<<"$line")"
    # The dump after zeroing is the file with the highest part number.
    dump="$(ls -v "$out".* 2>/dev/null | tail -n 1)"
    if [[ $workload == handshakes ]]; then
        messages="$(closes "$dump")"
    else
        messages="$(sed -n 's/.* messages=\([0-9]*\).*/\1/p' <<<"$line")"
    fi
    instructions="$(grep -E '^(summary|totals):' "$dump" | head -n 1 | awk '{print $2}')"
    if [[ -z $messages || $messages -eq 0 || -z $instructions ]]; then
        echo "callgrind.sh: $kind: no count ($line)" >&2
        exit 1
    fi
    if [[ ${errors:-1} -ne 0 ]]; then echo "callgrind.sh: $kind: wsload reported $errors errors" >&2; fi
    echo "| $kind | $messages | $((instructions / messages)) |"
done
