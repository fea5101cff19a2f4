#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# The `websocket` client through real proxies on loopback (issue 15): tinyproxy (HTTP CONNECT, with
# and without Basic credentials, one that refuses the port) and microsocks (SOCKS5, with and without
# user/password; socks5h:// and socks5://), to Python websockets echo servers over ws:// and wss://,
# plus a proxy that closes mid-handshake, and tinyproxy behind a TLS terminator as an https://
# proxy. Installs tinyproxy and microsocks (Debian) and websockets
# (PyPI, in a venv) when missing. Exits non-zero on the first failed check.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d /tmp/websocket-proxies.XXXXXX)"
LABEL=proxies
. "$ROOT/Scripts/interop/common.sh"

if ! command -v tinyproxy >/dev/null || ! command -v microsocks >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tinyproxy microsocks) >"$WORK/apt.log" 2>&1 \
    || { cat "$WORK/apt.log"; fail "cannot install tinyproxy and microsocks"; }
fi
echo "proxies: $(tinyproxy -v 2>&1 | head -1), microsocks $(dpkg-query -W -f='${Version}' microsocks 2>/dev/null)"

wait_for_port() { for _ in $(seq 200); do "$PY" -c "import socket,sys; socket.create_connection(('127.0.0.1', $1), 1)" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Called as a command, not inside $(...): in a subshell the pid would not reach PIDS, and the peer
# would outlive the script. The port is read from the file afterwards.
start_peer() {  # mode portfile [args]
  local mode=$1 file=$2; shift 2
  "$PY" "$ROOT/Scripts/interop/peer.py" "$mode" "$file" "$@" >"$file.log" 2>&1 &
  PIDS+=($!)
  wait_for_file "$file" || fail "peer.py $mode did not start"
}
start_peer plain-server "$WORK/ws.port"; ws_port=$(cat "$WORK/ws.port")
start_peer server "$WORK/wss.port" "$PKI/server.pem" "$PKI/server.key"; wss_port=$(cat "$WORK/wss.port")
start_peer closing-proxy "$WORK/closer.port"; closer_port=$(cat "$WORK/closer.port")

start_tinyproxy() {  # name port [extra config lines]
  local name=$1 port=$2; shift 2
  {
    echo "Port $port"; echo "Listen 127.0.0.1"; echo "Timeout 60"; echo "MaxClients 50"; echo "Allow 127.0.0.1"
    echo "LogLevel Info"; echo "LogFile \"$WORK/$name.log\""
    if [ "$(id -u)" = 0 ]; then echo "User nobody"; echo "Group nogroup"; fi
    for line in "$@"; do echo "$line"; done
  } >"$WORK/$name.conf"
  touch "$WORK/$name.log"; chmod 666 "$WORK/$name.log"
  tinyproxy -d -c "$WORK/$name.conf" >"$WORK/$name.out" 2>&1 &
  PIDS+=($!)
  wait_for_port "$port" || { cat "$WORK/$name.out" "$WORK/$name.log"; fail "tinyproxy $name did not start"; }
}
start_microsocks() {  # name port [args]
  local name=$1 port=$2; shift 2
  microsocks -i 127.0.0.1 -p "$port" "$@" >"$WORK/$name.out" 2>&1 &
  PIDS+=($!)
  wait_for_port "$port" || { cat "$WORK/$name.out"; fail "microsocks $name did not start"; }
}
http_open=$(free_port); start_tinyproxy open "$http_open"
http_auth=$(free_port); start_tinyproxy auth "$http_auth" "BasicAuth alice s3cret"
http_strict=$(free_port); start_tinyproxy strict "$http_strict" "ConnectPort 443"
socks_open=$(free_port); start_microsocks open "$socks_open"
socks_auth=$(free_port); start_microsocks auth "$socks_auth" -u bob -P hunter2

# One echo round trip: two lines in, two echoes out, exit 0.
check_echo() {  # description url proxy [more options]
  local what=$1 url=$2 proxy=$3; shift 3
  local out status tls=()
  case "$url" in wss:*) tls=(--cacert "$PKI/ca.pem") ;; esac
  out=$(printf 'one\nκόσμε\n' | timeout 60 "$BIN" connect "$url" --proxy "$proxy" "${tls[@]}" --max-messages 2 --linger 30 "$@" 2>"$WORK/client.err")
  status=$?
  [ "$status" = 0 ] || { cat "$WORK/client.err"; fail "$what: exit status $status"; }
  [ "$out" = "$(printf 'one\nκόσμε')" ] || { cat "$WORK/client.err"; fail "$what: got $(printf '%q' "$out")"; }
  echo "proxies: $what: 2 echoes, exit 0"
}
# A refusal: the expected exit status and a message naming the cause.
check_refused() {  # description expected-status pattern url proxy
  local what=$1 expected=$2 pattern=$3 url=$4 proxy=$5
  local status tls=()
  case "$url" in wss:*) tls=(--cacert "$PKI/ca.pem") ;; esac
  printf 'x\n' | timeout 60 "$BIN" connect "$url" --proxy "$proxy" "${tls[@]}" --linger 5 >/dev/null 2>"$WORK/client.err"
  status=$?
  [ "$status" = "$expected" ] || { cat "$WORK/client.err"; fail "$what: exit status $status, expected $expected"; }
  grep -qiE "$pattern" "$WORK/client.err" || { cat "$WORK/client.err"; fail "$what: no '$pattern' in the error"; }
  echo "proxies: $what: refused (exit $status): $(head -1 "$WORK/client.err")"
}

ws="ws://127.0.0.1:$ws_port/"
wss="wss://localhost:$wss_port/"
check_echo "ws through tinyproxy" "$ws" "http://127.0.0.1:$http_open"
check_echo "wss through tinyproxy" "$wss" "http://127.0.0.1:$http_open"
check_echo "ws through tinyproxy with Basic credentials" "$ws" "http://alice:s3cret@127.0.0.1:$http_auth"
check_echo "wss through tinyproxy with Basic credentials" "$wss" "http://alice:s3cret@127.0.0.1:$http_auth"
check_refused "tinyproxy, no credentials" 3 "407" "$ws" "http://127.0.0.1:$http_auth"
check_refused "tinyproxy, wrong credentials (tinyproxy answers 401)" 3 "HTTP 40[17]" "$ws" "http://alice:wrong@127.0.0.1:$http_auth"
check_refused "tinyproxy refusing the port" 3 "403|refused" "$ws" "http://127.0.0.1:$http_strict"
check_echo "ws through microsocks (socks5h)" "$ws" "socks5h://127.0.0.1:$socks_open"
check_echo "wss through microsocks (socks5h)" "$wss" "socks5h://127.0.0.1:$socks_open"
check_echo "wss through microsocks (socks5, resolved here)" "$wss" "socks5://127.0.0.1:$socks_open"
check_echo "ws through microsocks with user/password" "$ws" "socks5h://bob:hunter2@127.0.0.1:$socks_auth"
check_echo "wss through microsocks with user/password" "$wss" "socks5h://bob:hunter2@127.0.0.1:$socks_auth"
check_refused "microsocks, wrong password" 3 "credentials|authenticat|password" "$ws" "socks5h://bob:wrong@127.0.0.1:$socks_auth"
check_refused "microsocks, no credentials" 3 "method|authenticat|credentials" "$ws" "socks5h://127.0.0.1:$socks_auth"
check_refused "a proxy that closes mid-handshake" 3 "proxy" "$ws" "http://127.0.0.1:$closer_port"

# An https:// proxy: TLS to the proxy itself (verified with the same --cacert as the target, for the
# proxy's name), then CONNECT inside it; a TLS terminator (peer.py tls-front) in front of tinyproxy,
# which speaks only TLS, so an echo through it proves both layers.
start_peer tls-front "$WORK/front.port" "$PKI/server.pem" "$PKI/server.key" "$http_open"; https_front=$(cat "$WORK/front.port")
start_peer tls-front "$WORK/other.port" "$PKI/other.pem" "$PKI/other.key" "$http_open"; https_other=$(cat "$WORK/other.port")
check_echo "ws through an https:// proxy (TLS to the proxy)" "$ws" "https://localhost:$https_front" --cacert "$PKI/ca.pem"
check_echo "wss through an https:// proxy (TLS in TLS)" "$wss" "https://localhost:$https_front"
check_refused "an https:// proxy whose certificate the CA did not sign" 4 "not signed by a trusted authority|certificate" "$wss" "https://localhost:$https_other"

# The environment, as curl reads it: loopback is never proxied, so a dead proxy in ws_proxy is not used.
out=$(printf 'direct\n' | ws_proxy="http://127.0.0.1:$closer_port" timeout 60 "$BIN" connect "$ws" -1 --linger 30 2>"$WORK/client.err")
[ $? = 0 ] && [ "$out" = "direct" ] || { cat "$WORK/client.err"; fail "loopback under ws_proxy"; }
echo "proxies: ws_proxy set, loopback target: connected directly"
status=0
ws_proxy="not a proxy url" "$BIN" connect "ws://example.invalid/" </dev/null >/dev/null 2>"$WORK/client.err" || status=$?
[ "$status" = 2 ] && grep -q "ws_proxy" "$WORK/client.err" || { cat "$WORK/client.err"; fail "a bad ws_proxy: exit $status"; }
echo "proxies: a bad ws_proxy is an error naming it (exit 2), never a direct connection"
echo "proxies: all checks passed"
