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
