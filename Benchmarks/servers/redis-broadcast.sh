#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Topics across servers through Redis (issue 31): 1 KiB messages published to N subscribers split
# over two servers on one Redis, against the same publish to N subscribers of one server, in the
# same run.
#
#   Benchmarks/servers/redis-broadcast.sh [ROUNDS=3] [N=1000] [K=100]
#
# Starts redis-server (Debian's package; on a free port, no persistence), then server A and server B,
# each `websocket-bench serve-echo loop-handler --redis redis://127.0.0.1:PORT` (every connection
# subscribes to one topic; `publish K S` on a connection publishes K messages of S bytes to it, and
# the RedisBackplane carries them to the other server). A standing client on B keeps B subscribed
# between runs. Each round then runs both, taking turns going first:
#
#   one server:  wsload broadcast --publish --latency --conns N --port A
#   two servers: wsload broadcast --publish --latency --conns N --port A --port2 B
#
# with --messages K --size 1024 --rounds 5 (wsload's median round; K = 1 times one message alone). In the second, the odd
# connections are B's: they get each message through Redis. Prints a markdown table of medians over
# the rounds: delivered messages/s, and when messages arrived after the request (p50, p99) at A's
# connections and at B's: B's minus A's is what the hop through Redis adds. Servers on CPU 0,
# wsload and Redis on CPU 1 (with two CPUs). Every wsload line is kept in .build/servers/redis-broadcast-*.txt.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=common.sh
. "$here/common.sh"

rounds="${1:-3}"
conns="${2:-1000}"
messages="${3:-100}"
if ! [[ $rounds =~ ^[1-9][0-9]*$ && $conns =~ ^([2-9]|[1-9][0-9]+)$ && $messages =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: redis-broadcast.sh [ROUNDS=3] [N=1000] [K=100]" >&2
    exit 2
fi
command -v redis-server >/dev/null || { echo "redis-broadcast.sh: redis-server is not installed (apt-get install redis-server)" >&2; exit 2; }
ulimit -n 65536 2>/dev/null || true
check_port_range $((conns + 100)) redis-broadcast.sh

track_processes
pids=()
extra_cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
build_tools "$root"

pin_servers=()
pin_load=()
if command -v taskset >/dev/null 2>&1 && (($(nproc) >= 2)); then
    pin_servers=(taskset -c 0)
    pin_load=(taskset -c 1)
fi

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for_line() {  # file pattern
    for _ in $(seq 300); do grep -q -E "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    echo "redis-broadcast.sh: no line matching $2 in $1: $(tail -5 "$1")" >&2
    exit 1
}

redis_port="$(free_port)"
"${pin_load[@]}" redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" \
    >"$work/redis.log" 2>&1 &
pids+=($!)
wait_for_line "$work/redis.log" 'Ready to accept connections'
url="redis://127.0.0.1:$redis_port"

start_server() {  # name: sets port_NAME
    local name=$1 port
    port="$(free_port)"
    "${pin_servers[@]}" "$bench" serve-echo loop-handler --port "$port" --redis "$url" >"$work/$name.out" 2>"$work/$name.err" &
    pids+=($!)
    wait_for_line "$work/$name.out" '^listening'
    wait_for_line "$work/$name.err" 'connected\(.*subscriber'
    wait_for_line "$work/$name.err" 'connected\(.*publisher'
    printf -v "port_$name" '%s' "$port"
}
start_server a
start_server b
# A standing subscriber on B, reading everything: B's topic stays subscribed in Redis between runs.
(exec 3<>"/dev/tcp/127.0.0.1/$port_b" && printf 'GET / HTTP/1.1\r\nHost: b\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n' >&3 && cat <&3 >/dev/null) &
pids+=($!)
wait_for_line "$work/b.err" 'subscribed\(topic'

stamp="$(date +%Y%m%d-%H%M%S)"
log="$bin/redis-broadcast-$stamp.txt"
run() {  # label [wsload options]
    local label=$1
    shift
    local line
    line="$("${pin_load[@]}" "$wsload" broadcast --publish --latency --conns "$conns" --messages "$messages" --size 1024 --rounds 5 \
        --port "$port_a" "$@" | tail -n 1)"
    echo "$label $line" >>"$log"
    if ! grep -q ' errors=0 ' <<<"$line"; then echo "redis-broadcast.sh: $label failed: $line" >&2; exit 1; fi
}
for ((round = 0; round < rounds; round++)); do
    if ((round % 2 == 0)); then
        run one
        run two --port2 "$port_b"
    else
        run two --port2 "$port_b"
        run one
    fi
done

field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }
median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
echo "| N = $conns, 1 KiB × $messages per round | delivered messages/s | arrival p50 / p99, publishing server (ms) | arrival p50 / p99, other server through Redis (ms) |"
echo "| --- | --- | --- | --- |"
for label in one two; do
    lines="$(grep "^$label " "$log")"
    rate="$(field rate <<<"$lines" | median)"
    a50="$(field arrival_p50_ms <<<"$lines" | median)"
    a99="$(field arrival_p99_ms <<<"$lines" | median)"
    if [[ $label == two ]]; then
        b50="$(field port2_arrival_p50_ms <<<"$lines" | median)"
        b99="$(field port2_arrival_p99_ms <<<"$lines" | median)"
        printf '| two servers, one Redis | %.0f | %.2f / %.2f | %.2f / %.2f |\n' "$rate" "$a50" "$a99" "$b50" "$b99"
    else
        printf '| one server | %.0f | %.2f / %.2f | |\n' "$rate" "$a50" "$a99"
    fi
done
echo "(wsload lines: $log)"
