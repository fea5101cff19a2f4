# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Helpers the server benchmark scripts share (sourced, not run).

# stop_process PID: SIGTERM, then SIGKILL after 10 s, and reap it.
stop_process() {
    local pid=$1
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# check_port_range N SCRIPT: fails when the ephemeral port range cannot hold N connections to one
# server port.
check_port_range() {
    local n=$1 script=$2 port_low port_high ports
    read -r port_low port_high </proc/sys/net/ipv4/ip_local_port_range
    ports=$((port_high - port_low + 1))
    if ((n > ports - 500)); then
        echo "$script: the ephemeral port range $port_low-$port_high ($ports ports) is too small" \
            "for $n connections to one server port: widen net.ipv4.ip_local_port_range" >&2
        exit 1
    fi
    port_range_note="ephemeral ports $port_low-$port_high ($ports, enough for $n)"
}

# track_processes: the scripts' process bookkeeping. Sets server_pid and load_pid (empty: none yet)
# and work (a temporary directory), and on exit stops both processes, runs `extra_cleanup` when the
# script defines it, and removes work. SIGINT and SIGTERM exit through the same path.
track_processes() {
    server_pid=""
    load_pid=""
    work="$(mktemp -d)"
    trap _cleanup_processes EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

_cleanup_processes() {
    if declare -F extra_cleanup >/dev/null; then extra_cleanup; fi
    if [[ -n $load_pid ]]; then stop_process "$load_pid"; fi
    if [[ -n $server_pid ]]; then stop_process "$server_pid"; fi
    rm -rf "$work"
}

# build_tools ROOT: builds lws-echo and wsload (build.sh) and websocket-bench (release); sets bin (the
# C programs' directory, where the raw figures go too), wsload, lws_echo, bench and echo_server.
build_tools() {
    local root=$1
    echo "building lws-echo and wsload..." >&2
    bin="$("$here/build.sh" | tail -n 1)"
    wsload="$bin/wsload"
    lws_echo="$bin/lws-echo"
    # WEBSOCKET_STATIC_STDLIB=1: built as a server is best deployed (Scripts/build-static.sh: the
    # Swift runtime linked in, linked for a small start; its own build directory), about 4 MiB less
    # resident (docs/performance.md).
    local build=(swift build -c release)
    if [[ ${WEBSOCKET_STATIC_STDLIB:-} == 1 ]]; then
        # shellcheck disable=SC2207
        build=(swift build $("$root/Scripts/build-static.sh" --flags) --scratch-path "$root/.build/static")
        # Linked again: SwiftPM does not relink when only -Xlinker options changed.
        rm -f "$root/.build/static/release/websocket-bench" "$root/.build/static/release/websocket-echo-server"
    fi
    echo "building websocket-bench and websocket-echo-server (release${WEBSOCKET_STATIC_STDLIB:+, static stdlib})..." >&2
    (cd "$root" && "${build[@]}" --product websocket-bench >&2 && "${build[@]}" --product websocket-echo-server >&2)
    bench="$(cd "$root" && "${build[@]}" --show-bin-path)/websocket-bench"
    # The echo servers run from the binary that links no TLS (no OpenSSL mapped, as a server built
    # without wss, and as the uWebSockets anchor is built); `serve-echo` is the same in both.
    echo_server="$(cd "$root" && "${build[@]}" --show-bin-path)/websocket-echo-server"
}

# uws_anchor SCRIPT: for the optional `uws` kind (uWebSockets, issue 28; docs/performance.md,
# "uWebSockets as an anchor"): sets uws_echo to the absolute path of $UWS_ECHO, a uws-echo binary
# built from uws-echo.cpp against a uWebSockets tree; fails with a usage message when it is unset or
# not executable. The repository builds no uWebSockets: the binary is the measurer's.
uws_anchor() {
    local script=$1
    if [[ -z ${UWS_ECHO:-} ]]; then
        echo "$script: the uws kind needs UWS_ECHO, the path of a uws-echo binary (Benchmarks/servers/uws-echo.cpp" \
            "built against a uWebSockets tree; docs/performance.md, \"uWebSockets as an anchor\")" >&2
        exit 2
    fi
    if [[ ! -f $UWS_ECHO || ! -x $UWS_ECHO ]]; then
        echo "$script: UWS_ECHO=$UWS_ECHO is not an executable file" >&2
        exit 2
    fi
    uws_echo="$(cd "$(dirname "$UWS_ECHO")" && pwd)/$(basename "$UWS_ECHO")"
}
