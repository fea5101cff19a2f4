#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Our client (`websocket-bench client-echo`, on WebSocketAsync) against the C load generator
# (wsload), driving the same echo servers in one sitting, interleaved over rounds.
#
#   Benchmarks/servers/client-compare.sh [ROUNDS=3] [SECONDS=5]
#
# Builds lws-echo and wsload (build.sh) and websocket-bench (release). Each round starts each
# server in turn (lws-echo and `websocket-bench serve-echo loop-handler`; the order rotates by one
# each round) on a fresh port, pinned to CPU 0, and drives it from CPU 1 with wsload and with
# client-echo in each face (loop, queue, async; the order of the four rotates by one each round):
#
#   1. pingpong 1 connection, 256 B binary messages, one at a time      messages/s
#   2. pingpong 100 connections, 256 B, each one at a time              messages/s (all together)
#   3. pipeline 1 connection, 64 messages of 256 B in flight            messages/s
#
# (each SECONDS long after 0.5 s of warm-up, every echo checked by both). Prints a markdown table of
# medians over the rounds: wsload in absolute figures, each face of ours as a ratio to wsload's
# median against the same server (and its own median in parentheses). The raw figures (every result
# line) are kept in .build/servers/client-compare-*.txt.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=common.sh
. "$here/common.sh"

rounds="${1:-3}"
seconds="${2:-5}"
if (($# > 2)) || ! [[ $rounds =~ ^[1-9][0-9]*$ ]] || ! [[ $seconds =~ ^[0-9]+([.][0-9]+)?$ ]]; then
    echo "usage: client-compare.sh [ROUNDS=3] [SECONDS=5]" >&2
    exit 2
fi

track_processes
build_tools "$root"

servers=(lws loop-handler)
clients=(wsload loop queue async)
faces=(loop queue async)
workloads=(pingpong-1 pingpong-100 pipeline-64)

# CPU 0 for the server, CPU 1 for the load generator; on one CPU, both share it.
server_cpu=0
load_cpu=1
if (($(nproc) < 2)); then load_cpu=0; echo "client-compare.sh: one CPU: server and load generator share it" >&2; fi
pin_server=()
pin_load=()
if command -v taskset >/dev/null 2>&1; then
    pin_server=(taskset -c "$server_cpu")
    pin_load=(taskset -c "$load_cpu")
else
    echo "client-compare.sh: no taskset: nothing is pinned" >&2
fi

# A fresh port for every server start, below the ephemeral range (the clients' ports).
next_port=$((20000 + RANDOM % 4000))

start_server() {  # NAME: sets server_pid and port
    local name=$1
    for _ in 1 2 3 4 5; do
        port=$next_port
        next_port=$((next_port + 1))
        local out="$work/server.out"
        : >"$out"
        if [[ $name == lws ]]; then
            "${pin_server[@]}" "$lws_echo" "$port" >"$out" 2>"$work/server.err" &
        else
            "${pin_server[@]}" "$echo_server" serve-echo "$name" --port "$port" >"$out" 2>"$work/server.err" &
        fi
        server_pid=$!
        for _ in $(seq 100); do
            if grep -q '^listening' "$out"; then return 0; fi
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.1
        done
        echo "client-compare.sh: $name did not start on port $port: $(cat "$work/server.err")" >&2
        stop_process "$server_pid"
        server_pid=""
    done
    return 1
}

# The command line of CLIENT for WORKLOAD against the server on $port.
client_command() {  # CLIENT WORKLOAD: sets command
    local client=$1 workload=$2 conns=1 mode=pingpong
    case $workload in
        pingpong-1) ;;
        pingpong-100) conns=100 ;;
        pipeline-64) mode=pipeline ;;
    esac
    if [[ $client == wsload ]]; then
        command=("$wsload" "$mode" --port "$port" --conns "$conns" --size 256 --seconds "$seconds")
        [[ $mode == pipeline ]] && command+=(--depth 64)
    else
        command=("$bench" client-echo --url "ws://127.0.0.1:$port/" --conns "$conns" --size 256
            --seconds "$seconds" --mode "$mode" --face "$client")
        [[ $mode == pipeline ]] && command+=(--depth 64)
    fi
    return 0
}

raw="$bin/client-compare-$(date +%Y%m%d-%H%M%S).txt"
: >"$raw"
results="$work/results"  # lines: SERVER WORKLOAD CLIENT RATE ERRORS
: >"$results"

run_load() {  # SERVER WORKLOAD CLIENT
    local server=$1 workload=$2 client=$3 status=0 line rate errors
    client_command "$client" "$workload"
    "${pin_load[@]}" "${command[@]}" >"$work/load.out" 2>"$work/load.err" &
    load_pid=$!
    wait "$load_pid" || status=$?
    load_pid=""
    line="$(tail -n 1 "$work/load.out")"
    echo "round=$round server=$server workload=$workload client=$client status=$status $line" >>"$raw"
    # wsload prints rate=, client-echo msgs/s=.
    rate="$(sed -n 's/.* \(rate\|msgs\/s\)=\([0-9.]*\).*/\2/p' <<<"$line")"
    errors="$(sed -n 's/.* errors=\([0-9]*\).*/\1/p' <<<"$line")"
    if [[ -z $rate ]]; then rate=0; fi
    if [[ -z $errors ]]; then errors=1; fi
    if ((status != 0)); then
        echo "client-compare.sh: $server $workload $client: exit $status, errors=$errors: $(head -n 3 "$work/load.err" | tr '\n' ' ')" >&2
    fi
    echo "$server $workload $client $rate $errors" >>"$results"
    printf '  %-13s %-13s %-7s %12.1f/s%s\n' "$server" "$workload" "$client" "$rate" \
        "$( ((errors > 0)) && echo "  ($errors errors)")" >&2
}

echo "commands (PORT: a fresh port per server start; server on CPU $server_cpu, load on CPU $load_cpu):" >&2
port=PORT
for w in "${workloads[@]}"; do
    for c in "${clients[@]}"; do
        client_command "$c" "$w"
        echo "  ${pin_load[*]} ${command[*]#"$root/"}" >&2
    done
done

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
for ((round = 0; round < rounds; round++)); do
    echo "round $((round + 1)) of $rounds" >&2
    for ((i = 0; i < ${#servers[@]}; i++)); do
        server="${servers[$(((i + round) % ${#servers[@]}))]}"
        start_server "$server"
        for workload in "${workloads[@]}"; do
            for ((j = 0; j < ${#clients[@]}; j++)); do
                run_load "$server" "$workload" "${clients[$(((j + round) % ${#clients[@]}))]}"
            done
        done
        stop_process "$server_pid"
        server_pid=""
    done
done

# Medians over the rounds (the mean of the middle two for an even count), per server, workload and
# client; the errors summed.
medians="$work/medians"
sort -k1,1 -k2,2 -k3,3 -k4,4g "$results" | awk '
    function flush() {
        if (n == 0) return
        m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        print key, m, e
    }
    { k = $1 " " $2 " " $3
      if (k != key) { flush(); key = k; n = 0; e = 0 }
      v[++n] = $4; e += $5 }
    END { flush() }' >"$medians"

median() { awk -v s="$1" -v w="$2" -v c="$3" '$1 == s && $2 == w && $3 == c {print $4}' "$medians"; }
mark() {
    local e
    e="$(awk -v s="$1" -v w="$2" -v c="$3" '$1 == s && $2 == w && $3 == c {print $5}' "$medians")"
    if [[ -n $e && $e != 0 ]]; then echo " (!$e errors)"; fi
}

echo
echo "Medians of $rounds rounds, ${seconds} s per run after 0.5 s of warm-up, 256 B binary messages;" \
    "server on CPU $server_cpu, load generator on CPU $load_cpu; load average $load_before before," \
    "$(cut -d' ' -f1-3 /proc/loadavg) after."
echo
echo "| server | load generator | ping-pong 1 conn | ping-pong 100 conns | pipeline 1 conn × 64 |"
echo "| --- | --- | --- | --- | --- |"
for server in "${servers[@]}"; do
    row="| $server | wsload (absolute) |"
    for w in "${workloads[@]}"; do
        row+=" $(awk -v x="$(median "$server" "$w" wsload)" 'BEGIN {printf "%.0f", x}') msg/s$(mark "$server" "$w" wsload) |"
    done
    echo "$row"
    for face in "${faces[@]}"; do
        row="| $server | client-echo --face $face (× wsload) |"
        for w in "${workloads[@]}"; do
            row+=" $(awk -v x="$(median "$server" "$w" "$face")" -v b="$(median "$server" "$w" wsload)" \
                'BEGIN {if (b > 0) printf "**%.2f×** (%.0f)", x / b, x; else print "n/a"}')$(mark "$server" "$w" "$face") |"
        done
        echo "$row"
    done
done
echo
echo "raw figures: $raw"
if awk '$5 > 0 {bad = 1} END {exit !bad}' "$results"; then
    echo "client-compare.sh: some runs had errors (see $raw)" >&2
    exit 1
fi
