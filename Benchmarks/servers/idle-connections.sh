#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# What an idle connection costs a server: its RSS before, with N idle connections open, and after
# they close; optionally, round trips over those N connections at one message per second each.
#
#   Benchmarks/servers/idle-connections.sh [N=10000] [KIND=dispatch-handler] [--steady] [--steady-seconds 60]
#
# KIND: lws, or a `websocket-bench serve-echo` kind (`websocket-bench serve-echo --list`). Loopback
# only; the server runs pinned to CPU 0, wsload to CPU 1. Steps:
#   1. raise `ulimit -n` (each process needs a descriptor per connection, the blocking server three);
#   2. check that the ephemeral port range holds N connections to one port;
#   3. start the server, wait for it to settle, read its VmRSS;
#   4. `wsload idle` opens N connections (at most 256 handshakes in flight), each checked for its 101;
#      once it prints `ready`, wait for the server's RSS to settle and read it:
#      `rss growth per connection` = (RSS with N open - RSS before) / N;
#   5. close them all (Close 1000, the server's Close, TCP close), wait for the RSS to settle again
#      and print it and its difference from the start;
# "settle": RSS and thread count polled every 0.5 s until unchanged for 6 s (at most 20-30 s).
#   6. with --steady: `wsload steady --conns N --interval-ms 1000 --seconds 60` (new connections, each
#      sending one 256 B message a second, spread evenly) and print the round trip p50/p99/max.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=common.sh
. "$here/common.sh"

n=10000
kind=dispatch-handler
steady=0
steady_seconds=60
positional=()
while (($# > 0)); do
    case $1 in
    --steady) steady=1 ;;
    --steady-seconds)
        steady_seconds="${2:?--steady-seconds needs a value}"
        shift
        ;;
    -h | --help)
        sed -n '/^# What an idle connection costs a server/,/^set -euo pipefail$/p' "${BASH_SOURCE[0]}" | sed '$d'
        exit 0
        ;;
    -*)
        echo "idle-connections.sh: unknown option $1" >&2
        exit 2
        ;;
    *) positional+=("$1") ;;
    esac
    shift
done
if ((${#positional[@]} > 0)); then n="${positional[0]}"; fi
if ((${#positional[@]} > 1)); then kind="${positional[1]}"; fi
if ((${#positional[@]} > 2)); then
    echo "usage: idle-connections.sh [N=10000] [KIND] [--steady] [--steady-seconds S]" >&2
    exit 2
fi
if ! [[ $n =~ ^[1-9][0-9]*$ ]] || ! [[ $steady_seconds =~ ^[1-9][0-9]*$ ]]; then
    echo "idle-connections.sh: N and --steady-seconds must be positive integers" >&2
    exit 2
fi

# Descriptors per connection in the server process: one socket; the blocking server also holds a
# self-pipe (two descriptors) per connection. A kind not listed here is assumed to need two.
case $kind in
lws | dispatch-handler | dispatch-async | loop-handler | loop-async) per_connection=1 ;;
blocking) per_connection=3 ;;
*) per_connection=2 ;;
esac
need_server=$((n * per_connection + 100))
need_load=$((n + 100))
need=$((need_server > need_load ? need_server : need_load))
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
limit="$(ulimit -n)"
if [[ $limit != unlimited ]] && ((limit < need)); then
    echo "idle-connections.sh: $n connections to $kind need $need descriptors in one process" \
        "($need_server in the server, $need_load in wsload); ulimit -n reached only $limit" \
        "(hard limit $(ulimit -Hn)). Raise the hard limit (as root: ulimit -Hn, or LimitNOFILE) or use a smaller N." >&2
    exit 1
fi

check_port_range "$n" idle-connections.sh

hold_fd=""
extra_cleanup() {
    if [[ -n $hold_fd ]]; then exec {hold_fd}>&-; fi
}
track_processes

echo "building..." >&2
bin="$("$here/build.sh" | tail -n 1)"
wsload="$bin/wsload"
if [[ $kind == lws ]]; then
    server_command=("$bin/lws-echo")
else
    (cd "$root" && swift build -c release --product websocket-bench >&2)
    bench="$(cd "$root" && swift build -c release --show-bin-path)/websocket-bench"
    # The list read whole, then searched: `| grep -q` under pipefail fails if grep exits first.
    if ! grep -qx -- "$kind" <<<"$("$echo_server" serve-echo --list)"; then
        echo "idle-connections.sh: unknown kind $kind (lws, or one of: $("$echo_server" serve-echo --list | tr '\n' ' '))" >&2
        exit 2
    fi
    server_command=("$echo_server" serve-echo "$kind" --port)
fi
pin_server=()
pin_load=()
if command -v taskset >/dev/null 2>&1 && (($(nproc) >= 2)); then
    pin_server=(taskset -c 0)
    pin_load=(taskset -c 1)
fi

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$server_pid/status"; }
threads() { awk '/^Threads:/ {print $2}' "/proc/$server_pid/status"; }
# Polls the server's RSS and thread count every 0.5 s until neither has moved (RSS by more than 1%,
# at least 256 KiB) for 6 s, at most MAX seconds; prints the last RSS reading. (6 s: libdispatch
# lets idle worker threads go after about 5 s, and their stacks with them.)
settle() {
    local max=$1 previous current threads_before threads_now still=0 i
    previous="$(rss_kib)"
    threads_before="$(threads)"
    current=$previous
    for ((i = 0; i < max * 2; i++)); do
        sleep 0.5
        current="$(rss_kib)"
        threads_now="$(threads)"
        local delta=$((current > previous ? current - previous : previous - current))
        local tolerance=$((current / 100 > 256 ? current / 100 : 256))
        if ((delta <= tolerance)) && ((threads_now == threads_before)); then
            still=$((still + 1))
            if ((still >= 12)); then break; fi
        else
            still=0
            previous=$current
            threads_before=$threads_now
        fi
    done
    echo "$current"
}
mib() { awk -v k="$1" 'BEGIN {printf "%.1f MiB", k / 1024}'; }

# Start the server on a fresh port below the ephemeral range.
port=""
for _ in 1 2 3 4 5; do
    candidate=$((20000 + RANDOM % 9000))
    : >"$work/server.out"
    "${pin_server[@]}" "${server_command[@]}" "$candidate" >"$work/server.out" 2>"$work/server.err" &
    server_pid=$!
    for _ in $(seq 100); do
        if grep -q '^listening' "$work/server.out"; then port=$candidate; break; fi
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    if [[ -n $port ]]; then break; fi
    stop_process "$server_pid"
    server_pid=""
done
if [[ -z $port ]]; then
    echo "idle-connections.sh: $kind did not start: $(cat "$work/server.err")" >&2
    exit 1
fi

echo "server: $kind on 127.0.0.1:$port (pid $server_pid); $n connections; ulimit -n $limit;" \
    "$port_range_note"
rss_start="$(settle 20)"
echo "rss before: $(mib "$rss_start") ($(threads) threads)"

# wsload holds the connections until its standard input (a FIFO this script holds open) closes.
mkfifo "$work/hold"
exec {hold_fd}<>"$work/hold"
started=$SECONDS
: >"$work/idle.out"
"${pin_load[@]}" "$wsload" idle --port "$port" --conns "$n" --hold 86400 --timeout 60 \
    <"$work/hold" >"$work/idle.out" 2>"$work/idle.err" {hold_fd}>&- &
load_pid=$!
until grep -q '^ready' "$work/idle.out"; do
    if ! kill -0 "$load_pid" 2>/dev/null; then
        echo "idle-connections.sh: wsload ended before it was ready: $(cat "$work/idle.out" "$work/idle.err")" >&2
        exit 1
    fi
    if ((SECONDS - started > 600)); then
        echo "idle-connections.sh: $n connections not open after 600 s" >&2
        exit 1
    fi
    sleep 0.2
done
open_seconds=$((SECONDS - started))
ready="$(grep '^ready' "$work/idle.out")"
rss_ready="$(rss_kib)"
rss_open="$(settle 30)"
threads_open="$(threads)"
echo "open: $ready after ${open_seconds} s; rss $(mib "$rss_ready") at ready, $(mib "$rss_open") settled ($threads_open threads)"
awk -v a="$rss_open" -v b="$rss_start" -v n="$n" 'BEGIN {printf "rss growth per connection = %.1f KiB\n", (a - b) / n}'

exec {hold_fd}>&-
hold_fd=""
status=0
wait "$load_pid" || status=$?
load_pid=""
idle_line="$(tail -n 1 "$work/idle.out")"
echo "wsload: $idle_line"
if ((status != 0)); then
    echo "idle-connections.sh: wsload idle exit $status: $(head -n 5 "$work/idle.err" | tr '\n' ' ')" >&2
fi
closed_at=$SECONDS
rss_after="$(settle 30)"
echo "rss after close: $(mib "$rss_after") ($(threads) threads, settled after $((SECONDS - closed_at)) s), $(awk -v a="$rss_after" -v b="$rss_start" \
    'BEGIN {printf "%+.1f MiB", (a - b) / 1024}') from the start; peak $(awk '/^VmHWM:/ {printf "%.1f MiB", $2 / 1024}' "/proc/$server_pid/status")"

steady_line=""
if ((steady)); then
    steady_status=0
    "${pin_load[@]}" "$wsload" steady --port "$port" --conns "$n" --interval-ms 1000 --seconds "$steady_seconds" \
        --timeout 60 >"$work/steady.out" 2>"$work/steady.err" &
    load_pid=$!
    wait "$load_pid" || steady_status=$?
    load_pid=""
    steady_line="$(tail -n 1 "$work/steady.out")"
    echo "wsload: $steady_line"
    p50="$(sed -n 's/.* p50_us=\([0-9.]*\).*/\1/p' <<<"$steady_line")"
    p99="$(sed -n 's/.* p99_us=\([0-9.]*\).*/\1/p' <<<"$steady_line")"
    max="$(sed -n 's/.* max_us=\([0-9.]*\).*/\1/p' <<<"$steady_line")"
    echo "steady $n connections, 1 message/s each: p50 ${p50:-?} µs, p99 ${p99:-?} µs, max ${max:-?} µs; rss now $(mib "$(rss_kib)")"
    if ((steady_status != 0)); then
        echo "idle-connections.sh: wsload steady exit $steady_status: $(head -n 5 "$work/steady.err" | tr '\n' ' ')" >&2
        status=$steady_status
    fi
fi
stop_process "$server_pid"
server_pid=""
exit "$status"
