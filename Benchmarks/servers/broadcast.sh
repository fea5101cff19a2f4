#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Broadcast: one server sends each message to N connections, framed once
# (`WebSocketServer.broadcast(binary:)`, a `PreparedMessage` every connection shares).
#
#   Benchmarks/servers/broadcast.sh [ROUNDS=3] [--fresh-server] [--topics]
#
# With --topics, every N is measured twice in each round, one right after the other on the same
# server: the broadcast, then the same messages published to a topic every connection subscribed to
# as it opened (`WebSocketServer.publish(topic:binary:)`, `wsload broadcast --publish`), the two
# taking turns going first; the table has a row for each.
#
# Builds wsload (build.sh) and websocket-bench (release), starts `websocket-bench serve-echo
# loop-handler` once (with --fresh-server: anew for every run), pinned to CPU 0 (so one event loop),
# and each round runs, pinned to CPU 1, for N = 1, 1000, 10000 (the order rotates by one each round):
#
#   wsload broadcast --conns N --messages 100 --size 1024 --rounds 5
#
# which opens N connections (each checked for its 101), then 5 times asks the server on connection 0
# for `broadcast 100 1024` and times until every connection has the 100 binary messages of 1 KiB,
# each checked (size, bytes, sequence number in order); it reports its median of the 5. Delivered
# messages/s = N × 100 / seconds. Prints a markdown table of medians over the rounds: N, delivered
# messages/s, the ratio to N = 1 measured in the same run, the time until the first and the last
# connection had all 100, and the server's peak RSS during that N's runs (VmHWM, reset through
# /proc/PID/clear_refs before each run; where that is refused, only the peak over the whole run).
# Before each run the script waits until the server has used no CPU for 1 s (the connections of
# the run before closed, their memory released). Every wsload line is kept in
# .build/servers/broadcast-*.txt.
#
# With one server, a run carries what the runs before it left in the server (its heap, its tables);
# --fresh-server measures every run on a new server instead.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=common.sh
. "$here/common.sh"

rounds=3
fresh=0
topics=0
positional=0
for argument in "$@"; do
    case $argument in
    --fresh-server) fresh=1 ;;
    --topics) topics=1 ;;
    -h | --help)
        awk '/^# Broadcast: one server sends/ {on = 1} on && /^#/ {sub(/^# ?/, ""); print; next} on {exit}' "${BASH_SOURCE[0]}"
        exit 0
        ;;
    *)
        positional=$((positional + 1))
        rounds=$argument
        ;;
    esac
done
if ! [[ $rounds =~ ^[1-9][0-9]*$ ]] || ((positional > 1)); then
    echo "usage: broadcast.sh [ROUNDS=3] [--fresh-server] [--topics]" >&2
    exit 2
fi
counts=(1 1000 10000)
requests=(broadcast)
if ((topics)); then requests=(broadcast publish); fi
messages=100
size=1024
inner_rounds=5
kind=loop-handler

# Each process holds a descriptor per connection.
need=$((counts[${#counts[@]} - 1] + 100))
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
limit="$(ulimit -n)"
if [[ $limit != unlimited ]] && ((limit < need)); then
    echo "broadcast.sh: ${counts[${#counts[@]} - 1]} connections need $need descriptors per process;" \
        "ulimit -n reached only $limit (hard limit $(ulimit -Hn))" >&2
    exit 1
fi
check_port_range "$need" broadcast.sh

track_processes

build_tools "$root"

# CPU 0 for the server, CPU 1 for the load generator; on one CPU, both share it.
server_cpu=0
load_cpu=1
if (($(nproc) < 2)); then load_cpu=0; echo "broadcast.sh: one CPU: server and load generator share it" >&2; fi
# Prefixes, not a function: `taskset` execs the command, so $! is the server's (or wsload's) PID.
pin_server=()
pin_load=()
if command -v taskset >/dev/null 2>&1; then
    pin_server=(taskset -c "$server_cpu")
    pin_load=(taskset -c "$load_cpu")
else
    echo "broadcast.sh: no taskset: nothing is pinned" >&2
fi

# The server, on a fresh port below the ephemeral range (the clients' ports): sets server_pid and port.
start_server() {
    local candidate
    port=""
    for _ in 1 2 3 4 5; do
        candidate=$((20000 + RANDOM % 9000))
        : >"$work/server.out"
        "${pin_server[@]}" "$echo_server" serve-echo "$kind" --port "$candidate" >"$work/server.out" 2>"$work/server.err" &
        server_pid=$!
        for _ in $(seq 100); do
            if grep -q '^listening' "$work/server.out"; then port=$candidate; return 0; fi
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.1
        done
        stop_process "$server_pid"
        server_pid=""
    done
    echo "broadcast.sh: $kind did not start: $(cat "$work/server.err")" >&2
    exit 1
}
status_kib() { awk -v f="$1:" '$1 == f {print $2}' "/proc/$server_pid/status"; }
# The server's CPU time so far, in clock ticks (user + system; the fields after the command's
# parenthesis, which may hold spaces).
cpu_ticks() { sed 's/.*) //' "/proc/$server_pid/stat" | awk '{print $12 + $13}'; }
# Waits until the server has used no CPU for 1 s (at most 30 s): the connections of the run before
# closed and their memory released, so that no run pays for the one before it.
settle() {
    local previous current still=0 i
    previous="$(cpu_ticks)"
    for ((i = 0; i < 150; i++)); do
        sleep 0.2
        current="$(cpu_ticks)"
        if ((current == previous)); then
            still=$((still + 1))
            if ((still >= 5)); then return 0; fi
        else
            still=0
            previous=$current
        fi
    done
    echo "broadcast.sh: the server was still busy after 30 s" >&2
}
start_server
rss_start="$(status_kib VmRSS)"
echo "server: $kind on 127.0.0.1:$port (pid $server_pid), CPU $server_cpu; wsload on CPU $load_cpu;" \
    "ulimit -n $limit; rss $((rss_start / 1024)) MiB$( ((fresh)) && echo "; a fresh server for every run")" >&2

raw="$bin/broadcast-$(date +%Y%m%d-%H%M%S).txt"
: >"$raw"
results="$work/results"  # lines: N RATE FIRST_MS LAST_MS PEAK_KIB ERRORS
: >"$results"
per_run_peak=1
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$2"; }  # NAME LINE: a key=value of a wsload line
failed=0
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

count=${#counts[@]}
for ((round = 0; round < rounds; round++)); do
    echo "round $((round + 1)) of $rounds" >&2
    for ((i = 0; i < count; i++)); do
        n="${counts[$(((i + round) % count))]}"
        if ((fresh)) && [[ -z $server_pid ]]; then start_server; fi
        # The two requests take turns going first, round by round: neither always runs on the
        # heap the other left.
        order=("${requests[@]}")
        if ((topics)) && ((round % 2 == 1)); then order=(publish broadcast); fi
        for request in "${order[@]}"; do
            # Rows: N for a broadcast, N:publish for a publish.
            key=$n
            publish_flag=()
            if [[ $request == publish ]]; then key="$n:publish"; publish_flag=(--publish); fi
            settle
            # The peak from here on (5: reset VmHWM to the current RSS).
            if ((per_run_peak)) && ! { echo 5 >"/proc/$server_pid/clear_refs"; } 2>/dev/null; then
                per_run_peak=0
                echo "broadcast.sh: cannot reset the server's VmHWM (/proc/$server_pid/clear_refs): only the peak over the whole run" >&2
            fi
            status=0
            "${pin_load[@]}" "$wsload" broadcast --port "$port" --conns "$n" --messages "$messages" --size "$size" \
                --rounds "$inner_rounds" --timeout 60 "${publish_flag[@]}" >"$work/load.out" 2>"$work/load.err" &
            load_pid=$!
            wait "$load_pid" || status=$?
            load_pid=""
            if ! kill -0 "$server_pid" 2>/dev/null; then
                echo "broadcast.sh: the server died: $(tail -n 5 "$work/server.err" | tr '\n' ' ')" >&2
                server_pid=""
                exit 1
            fi
            peak="$(status_kib VmHWM)"
            line="$(tail -n 1 "$work/load.out")"
            echo "round=$round n=$n request=$request status=$status VmHWM_kB=$peak $line" >>"$raw"
            rate="$(field rate "$line")"
            first_ms="$(field first_ms "$line")"
            last_ms="$(field last_ms "$line")"
            errors="$(field errors "$line")"
            completed="$(field completed "$line")"
            if [[ -z $errors ]]; then errors=1; fi
            if [[ $completed != "$inner_rounds" ]] && ((errors == 0)); then errors=1; fi
            if ((status != 0)) || ((errors > 0)); then
                failed=1
                echo "broadcast.sh: N=$n $request: wsload exit $status, errors=$errors: $(head -n 3 "$work/load.err" | tr '\n' ' ')" >&2
            fi
            echo "$key ${rate:-0} ${first_ms:-0} ${last_ms:-0} ${peak:-0} $errors" >>"$results"
            printf '  %-9s N=%-6s %12.0f msg/s  first %8.2f ms  last %8.2f ms  server peak %6.1f MiB%s\n' "$request" "$n" "${rate:-0}" \
                "${first_ms:-0}" "${last_ms:-0}" "$(awk -v k="${peak:-0}" 'BEGIN {printf "%.1f", k / 1024}')" \
                "$( ((errors > 0)) && echo "  ($errors errors)")" >&2
        done
        if ((fresh)) && ((round < rounds - 1 || i < count - 1)); then
            stop_process "$server_pid"
            server_pid=""
        fi
    done
done
peak_total="$(status_kib VmHWM)"
if ((per_run_peak)); then  # the peaks since each reset, and the one since the last
    peak_total="$(awk -v p="$peak_total" '$5 > p {p = $5} END {print p}' "$results")"
fi
rss_end="$(status_kib VmRSS)"

# Per N: the median (the mean of the middle two for an even count) of each column, the most of the
# peaks, the sum of the errors.
median_of() {  # N COLUMN
    awk -v n="$1" -v c="$2" '$1 == n {print $c}' "$results" | sort -g | awk '
        { v[++k] = $1 }
        END { if (k == 0) print 0; else print (k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2) }'
}
max_of() { awk -v n="$1" -v c="$2" '$1 == n && $c > m {m = $c} END {print m + 0}' "$results"; }
sum_of() { awk -v n="$1" -v c="$2" '$1 == n {s += $c} END {print s + 0}' "$results"; }

base="$(median_of "${counts[0]}" 2)"
echo
echo "Broadcast of $messages messages of $size B, framed once, to N connections (serve-echo $kind," \
    "one event loop on CPU $server_cpu, $( ((fresh)) && echo "a fresh server for every run" || echo "one server for all runs");" \
    "wsload on CPU $load_cpu). Medians of $rounds rounds, each" \
    "the median of $inner_rounds broadcasts; load average $load_before before," \
    "$(cut -d' ' -f1-3 /proc/loadavg) after."
echo
echo "| N | delivered messages/s | × N = 1 | first connection done | last connection done | server peak RSS |"
echo "| --- | --- | --- | --- | --- | --- |"
rows=()
for n in "${counts[@]}"; do
    rows+=("$n")
    if ((topics)); then rows+=("$n:publish"); fi
done
for n in "${rows[@]}"; do
    rate="$(median_of "$n" 2)"
    errors="$(sum_of "$n" 6)"
    mark=""
    if ((errors > 0)); then mark=" (!$errors errors)"; fi
    if ((per_run_peak)); then
        peak_cell="$(awk -v k="$(max_of "$n" 5)" 'BEGIN {printf "%.1f MiB", k / 1024}')"
    else
        peak_cell="n/a"
    fi
    awk -v n="$n" -v r="$rate" -v b="$base" -v f="$(median_of "$n" 3)" -v l="$(median_of "$n" 4)" \
        -v p="$peak_cell" -v m="$mark" 'BEGIN {
            ratio = b > 0 ? sprintf("%.2f×", r / b) : "n/a"
            label = n; sub(/:publish$/, " (publish)", label)
            printf "| %s | %.0f%s | %s | %.2f ms | %.2f ms | %s |\n", label, r, m, ratio, f, l, p
        }'
done
echo
awk -v a="$rss_start" -v e="$rss_end" -v p="$peak_total" -v f="$fresh" 'BEGIN {
    printf "server RSS: %.1f MiB at start, %.1f MiB at the end%s; peak %.1f MiB (VmHWM)\n", a / 1024, e / 1024,
        f ? " (of the first and the last server)" : "", p / 1024
}'
echo "raw figures: $raw"
if ((failed)); then
    echo "broadcast.sh: some runs had errors (see $raw)" >&2
    exit 1
fi
