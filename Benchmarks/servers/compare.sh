#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Our echo servers against libwebsockets, in one sitting, interleaved over rounds.
#
#   Benchmarks/servers/compare.sh [ROUNDS=3] [SECONDS=5] [KINDS...]
#
# KINDS are `websocket-bench serve-echo` kinds (default: every kind `serve-echo --list` prints), and
# `uws`, the optional uWebSockets anchor (issue 28), only when named: UWS_ECHO must then be the path of
# a uws-echo binary (uws-echo.cpp built against a uWebSockets tree; docs/performance.md, "uWebSockets
# as an anchor"), e.g. `UWS_ECHO=.build/servers/uws-echo Benchmarks/servers/compare.sh 3 5 uws loop-handler`.
# uws is started and measured as lws is (pinned, a fresh port, "listening PORT" on stdout) and
# reported as our kinds are, a ratio to lws's median: lws stays the baseline column, so that tables
# with and without the anchor read the same; ours against uws is the quotient of the two ratios.
# Builds lws-echo and wsload (build.sh) and websocket-bench (release), then, each round, starts each
# server in turn (lws first, then our kinds; the order rotates by one each round) on a fresh port,
# pinned to CPU 0, and drives it from wsload pinned to CPU 1:
#
#   1. pingpong 1 connection, 256 B binary messages, one at a time      messages/s
#   2. pipeline 1 connection, 64 messages of 256 B in flight            messages/s
#   3. pingpong 100 connections, 256 B, each one at a time              messages/s (all together)
#   4. handshakes: 16 workers, each connect + upgrade + close, again    cycles/s
#
# (each SECONDS long after 0.5 s of warm-up), with the server's CPU time over each (user and system,
# all its threads, from /proc/PID/stat), then reads the server's peak RSS (VmHWM) and its
# private memory then (RssAnon: heap and stacks, without the shared libraries' mapped code) and stops it
# (SIGTERM, then SIGKILL after 10 s). Prints a markdown table of medians over the rounds: lws in
# absolute figures, each of ours as a ratio to lws's median; then a second table of what each server
# did per second of its own CPU time (the rate divided by the server's CPU share, medians), which
# shows a server's cost where the load generator, not the server, sets the rate; then a third of the
# server's user and system time per message or cycle (medians), which tells its own code's share from
# the kernel's. The raw figures (every wsload line)
# are kept in .build/servers/compare-*.txt. With WEBSOCKET_STATIC_STDLIB=1, our servers are built as
# a deployed server would be (Scripts/build-static.sh: the Swift runtime linked in).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=common.sh
. "$here/common.sh"

rounds="${1:-3}"
seconds="${2:-5}"
if ! [[ $rounds =~ ^[1-9][0-9]*$ ]] || ! [[ $seconds =~ ^[0-9]+([.][0-9]+)?$ ]]; then
    echo "usage: compare.sh [ROUNDS=3] [SECONDS=5] [KINDS...]" >&2
    exit 2
fi
shift $(($# < 2 ? $# : 2))
for kind in "$@"; do  # before anything is built
    if [[ $kind == uws ]]; then uws_anchor compare.sh; fi
done

track_processes

build_tools "$root"

if (($# > 0)); then
    kinds=("$@")
else
    mapfile -t kinds < <("$echo_server" serve-echo --list)
fi
known="$("$echo_server" serve-echo --list)"
for kind in "${kinds[@]}"; do
    if [[ $kind == uws ]]; then continue; fi
    if ! grep -qx -- "$kind" <<<"$known"; then
        echo "compare.sh: unknown kind $kind (known: $(tr '\n' ' ' <<<"$known")uws)" >&2
        exit 2
    fi
done
servers=(lws "${kinds[@]}")

# CPU 0 for the server, CPU 1 for the load generator; on one CPU, both share it.
server_cpu=0
load_cpu=1
if (($(nproc) < 2)); then load_cpu=0; echo "compare.sh: one CPU: server and load generator share it" >&2; fi
# Prefixes, not a function: `taskset` execs the command, so $! is the server's (or wsload's) PID.
pin_server=()
pin_load=()
if command -v taskset >/dev/null 2>&1; then
    pin_server=(taskset -c "$server_cpu")
    pin_load=(taskset -c "$load_cpu")
else
    echo "compare.sh: no taskset: nothing is pinned" >&2
fi

# A fresh port for every server start, below the ephemeral range (the clients' ports).
next_port=$((20000 + RANDOM % 4000))

start_server() {  # NAME: sets server_pid and port
    local name=$1 tries
    for tries in 1 2 3 4 5; do
        port=$next_port
        next_port=$((next_port + 1))
        local out="$work/server.out"
        : >"$out"
        if [[ $name == lws ]]; then
            "${pin_server[@]}" "$lws_echo" "$port" >"$out" 2>"$work/server.err" &
        elif [[ $name == uws ]]; then
            "${pin_server[@]}" "$uws_echo" "$port" >"$out" 2>"$work/server.err" &
        else
            "${pin_server[@]}" "$echo_server" serve-echo "$name" --port "$port" >"$out" 2>"$work/server.err" &
        fi
        server_pid=$!
        for _ in $(seq 100); do
            if grep -q '^listening' "$out"; then return 0; fi
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.1
        done
        echo "compare.sh: $name did not start on port $port: $(cat "$work/server.err")" >&2
        stop_process "$server_pid"
        server_pid=""
    done
    return 1
}

stop_server() {
    stop_process "$server_pid"
    server_pid=""
}

raw="$bin/compare-$(date +%Y%m%d-%H%M%S).txt"
: >"$raw"
results="$work/results"  # lines: SERVER WORKLOAD VALUE ERRORS
: >"$results"

server_cpu_ticks() {  # the server's user and system time so far, in clock ticks (all threads): "USER SYSTEM"
    awk '{sub(/^.*\) /, ""); print $12, $13}' "/proc/$server_pid/stat"
}

run_load() {  # SERVER WORKLOAD ARGS...: runs wsload, records its rate and the rate per server CPU-second
    local server=$1 workload=$2
    shift 2
    local status=0 line rate errors user_before system_before user_after system_after ticks_before ticks_after
    local wall_before wall_after per_cpu
    read -r user_before system_before <<<"$(server_cpu_ticks)"
    ticks_before=$((user_before + system_before))
    wall_before="$(date +%s.%N)"
    "${pin_load[@]}" "$wsload" "$@" --port "$port" --seconds "$seconds" >"$work/load.out" 2>"$work/load.err" &
    load_pid=$!
    wait "$load_pid" || status=$?
    load_pid=""
    read -r user_after system_after <<<"$(server_cpu_ticks)"
    ticks_after=$((user_after + system_after))
    wall_after="$(date +%s.%N)"
    line="$(tail -n 1 "$work/load.out")"
    echo "round=$round server=$server workload=$workload status=$status server_cpu_ticks=$((ticks_after - ticks_before)) server_user_ticks=$((user_after - user_before)) server_system_ticks=$((system_after - system_before)) wall_s=$(awk -v a="$wall_before" -v b="$wall_after" 'BEGIN {printf "%.3f", b - a}') $line" >>"$raw"
    rate="$(sed -n 's/.* rate=\([0-9.]*\).*/\1/p' <<<"$line")"
    errors="$(sed -n 's/.* errors=\([0-9]*\).*/\1/p' <<<"$line")"
    if [[ -z $rate ]]; then rate=0; fi
    if [[ -z $errors ]]; then errors=1; fi
    if ((status != 0)); then
        echo "compare.sh: $server $workload: wsload exit $status, errors=$errors: $(head -n 3 "$work/load.err" | tr '\n' ' ')" >&2
    fi
    echo "$server $workload $rate $errors" >>"$results"
    # What wsload counted (after its warm-up) per second of the server's CPU time over the whole run
    # (warm-up included, for every server alike).
    per_cpu="$(awk -v r="$rate" -v s="$seconds" -v t=$((ticks_after - ticks_before)) -v hz="$(getconf CLK_TCK)" \
        -v a="$wall_before" -v b="$wall_after" 'BEGIN {cpu = t / hz; if (cpu > 0) printf "%.1f", r * s / cpu; else print 0}')"
    echo "$server $workload-cpu $per_cpu 0" >>"$results"
    # The same CPU time split: microseconds of user and of system time per message or cycle, so
    # that a gap shows as the server's own code or as the kernel's work for it.
    awk -v r="$rate" -v s="$seconds" -v u=$((user_after - user_before)) -v k=$((system_after - system_before)) \
        -v hz="$(getconf CLK_TCK)" -v name="$server $workload" 'BEGIN {
            n = r * s; if (n <= 0) n = 1
            printf "%s-user %.3f 0\n%s-system %.3f 0\n", name, u / hz * 1e6 / n, name, k / hz * 1e6 / n }' >>"$results"
    printf '  %-18s %-12s %12.1f/s%s\n' "$server" "$workload" "$rate" "$( ((errors > 0)) && echo "  ($errors errors)")" >&2
}

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
workloads=(pingpong-1 pipeline-64 pingpong-100 handshakes)
count=${#servers[@]}
for ((round = 0; round < rounds; round++)); do
    echo "round $((round + 1)) of $rounds" >&2
    for ((i = 0; i < count; i++)); do
        server="${servers[$(((i + round) % count))]}"
        start_server "$server"
        run_load "$server" pingpong-1 pingpong --conns 1 --size 256
        run_load "$server" pipeline-64 pipeline --conns 1 --depth 64 --size 256
        run_load "$server" pingpong-100 pingpong --conns 100 --size 256
        run_load "$server" handshakes handshakes --parallel 16
        hwm="$(awk '/^VmHWM:/ {print $2}' "/proc/$server_pid/status")"
        anon="$(awk '/^RssAnon:/ {print $2}' "/proc/$server_pid/status")"
        echo "round=$round server=$server VmHWM_kB=$hwm RssAnon_kB=$anon" >>"$raw"
        echo "$server rss $(awk -v k="$hwm" 'BEGIN {printf "%.1f", k / 1024}') 0" >>"$results"
        echo "$server anon $(awk -v k="$anon" 'BEGIN {printf "%.1f", k / 1024}') 0" >>"$results"
        stop_server
    done
done

# Medians over the rounds (the mean of the middle two for an even count), per server and workload.
medians="$work/medians"
sort -k1,1 -k2,2 -k3,3g "$results" | awk '
    function flush() {
        if (n == 0) return
        m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        print key, m, e
    }
    { k = $1 " " $2
      if (k != key) { flush(); key = k; n = 0; e = 0 }
      v[++n] = $3; e += $4 }
    END { flush() }' >"$medians"

median() { awk -v s="$1" -v w="$2" '$1 == s && $2 == w {print $3}' "$medians"; }
errors_of() { awk -v s="$1" -v w="$2" '$1 == s && $2 == w {print $4}' "$medians"; }
mark() { local e; e="$(errors_of "$1" "$2")"; if [[ -n $e && $e != 0 ]]; then echo " (!$e errors)"; fi; }

echo
echo "Medians of $rounds rounds, ${seconds} s per workload; server on CPU $server_cpu, wsload on CPU $load_cpu;" \
    "load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after."
echo
echo "| server | ping-pong 1 conn, 256 B | pipeline 64 × 256 B | ping-pong 100 conns, 256 B | handshake cycles (16 parallel) | peak RSS | private memory after |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
row="| lws (absolute) |"
for w in "${workloads[@]}"; do
    unit="msg/s"
    [[ $w == handshakes ]] && unit="cycles/s"
    row+=" $(awk -v x="$(median lws "$w")" 'BEGIN {printf "%.0f", x}') $unit$(mark lws "$w") |"
done
row+=" $(median lws rss) MiB | $(median lws anon) MiB |"
echo "$row"
for kind in "${kinds[@]}"; do
    row="| $kind (× lws) |"
    for w in "${workloads[@]}"; do
        row+=" $(awk -v x="$(median "$kind" "$w")" -v b="$(median lws "$w")" 'BEGIN {if (b > 0) printf "%.2f×", x / b; else print "n/a"}')$(mark "$kind" "$w") |"
    done
    row+=" $(median "$kind" rss) MiB | $(median "$kind" anon) MiB |"
    echo "$row"
done
echo
# per_server_table CELL: a table of every server by workload, each cell what `CELL SERVER WORKLOAD` prints.
per_server_table() {
    local cell=$1 server w row
    echo "| server | ping-pong 1 conn | pipeline 64 × 256 B | ping-pong 100 conns | handshake cycles |"
    echo "| --- | --- | --- | --- | --- |"
    for server in "${servers[@]}"; do
        row="| $server |"
        for w in "${workloads[@]}"; do row+=" $("$cell" "$server" "$w") |"; done
        echo "$row"
    done
}
per_cpu_cell() { awk -v x="$(median "$1" "$2-cpu")" 'BEGIN {printf "%.0f", x}'; }
split_cell() {
    awk -v u="$(median "$1" "$2-user")" -v k="$(median "$1" "$2-system")" 'BEGIN {
        f = (u + k < 10) ? "%.2f + %.2f" : "%.1f + %.1f"; printf f, u, k }'
}
echo "Per second of the server's own CPU time (medians; messages or handshake cycles):"
echo
per_server_table per_cpu_cell
echo
echo "The server's CPU time per message or cycle, user + system, in microseconds (medians; counted in clock"
echo "ticks of $((1000 / $(getconf CLK_TCK))) ms, tens of them for the user share of a run: read that share as ±15 %):"
echo
per_server_table split_cell
echo
echo "raw figures: $raw"
if awk '$4 > 0 {bad = 1} END {exit !bad}' "$results"; then
    echo "compare.sh: some runs had errors (see $raw)" >&2
    exit 1
fi
