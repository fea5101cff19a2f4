#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# `websocket serve` behind real load balancers on loopback (issue 29): HAProxy in TCP mode with
# send-proxy and send-proxy-v2 (the server prints the client's address, not HAProxy's), a PROXY
# header from an untrusted address refused, HAProxy in HTTP mode forwarding the upgrade (with
# X-Forwarded-For), nginx as a reverse proxy (proxy_pass with Upgrade, Connection and
# X-Forwarded-For), and a drain (SIGTERM) of one of two servers HAProxy balances: no client loses a
# message it was sent before the Close. Installs haproxy and nginx (Debian) when missing. Exits
# non-zero on the first failed check.
#
# Addresses tell the hops apart: clients connect from 127.0.0.1; HAProxy reaches the servers from
# 127.0.0.2 (the trusted proxy), or from 127.0.0.3 (an untrusted one); nginx from 127.0.0.4.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d /tmp/websocket-lb.XXXXXX)"
LABEL=lb
. "$ROOT/Scripts/interop/common.sh"

if ! command -v haproxy >/dev/null || ! command -v nginx >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy nginx) >"$WORK/apt.log" 2>&1 \
    || { cat "$WORK/apt.log"; fail "cannot install haproxy and nginx"; }
fi
echo "lb: $(haproxy -v 2>&1 | head -1), $(nginx -v 2>&1)"

wait_for_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
# Ports the system chose, all at once: none of them in use, and none repeated.
read -r p_v1 p_v2 p_untrusted p_http p_pool p_nginx s_proxied s_plain s_one s_two < <("$PY" -c '
import socket
sockets = [socket.socket() for _ in range(10)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))')

start_serve() {  # name port [options]: websocket serve on 127.0.0.1:port; standard error in $WORK/name.err
  local name=$1 port=$2; shift 2
  "$BIN" serve --port "$port" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  PIDS+=($!)
  eval "pid_$name=$!"
  wait_for_port "$port" || { cat "$WORK/$name.err"; fail "serve $name did not start"; }
}
# The PROXY protocol server trusts 127.0.0.2 alone; the plain one takes HTTP proxies' requests.
start_serve proxied "$s_proxied" --echo --proxy-protocol --trust-proxy 127.0.0.2
start_serve plain "$s_plain" --echo
# The pair HAProxy balances, each broadcasting the lines of its own FIFO.
mkfifo "$WORK/one.in" "$WORK/two.in"
"$BIN" serve --port "$s_one" --broadcast --drain-timeout 20 --health /healthz <"$WORK/one.in" >"$WORK/one.out" 2>"$WORK/one.err" &
PIDS+=($!); pid_one=$!
exec 7>"$WORK/one.in"
"$BIN" serve --port "$s_two" --broadcast --drain-timeout 20 --health /healthz <"$WORK/two.in" >"$WORK/two.out" 2>"$WORK/two.err" &
PIDS+=($!); pid_two=$!
exec 8>"$WORK/two.in"
wait_for_port "$s_one" && wait_for_port "$s_two" || fail "the balanced servers did not start"

cat >"$WORK/haproxy.cfg" <<EOF
global
  maxconn 2000
defaults
  timeout connect 5s
  timeout client 60s
  timeout server 60s
  timeout tunnel 1h
frontend v1
  mode tcp
  bind 127.0.0.1:$p_v1
  default_backend v1
backend v1
  mode tcp
  server proxied 127.0.0.1:$s_proxied send-proxy source 127.0.0.2
frontend v2
  mode tcp
  bind 127.0.0.1:$p_v2
  default_backend v2
backend v2
  mode tcp
  server proxied 127.0.0.1:$s_proxied send-proxy-v2 source 127.0.0.2
frontend untrusted
  mode tcp
  bind 127.0.0.1:$p_untrusted
  default_backend untrusted
backend untrusted
  mode tcp
  server proxied 127.0.0.1:$s_proxied send-proxy source 127.0.0.3
frontend http
  mode http
  bind 127.0.0.1:$p_http
  option forwardfor
  default_backend http
backend http
  mode http
  server plain 127.0.0.1:$s_plain source 127.0.0.2
frontend pool
  mode tcp
  bind 127.0.0.1:$p_pool
  default_backend pool
backend pool
  mode tcp
  balance roundrobin
  # A server that stopped is skipped for new connections: retried on the other one.
  retries 2
  option redispatch
  # Health checks on the WebSocket port (serve --health): a server that drains closes its port, and
  # its checks fail at once.
  # Three failed checks in a row mark a server down: one slow answer on a busy machine does not.
  option httpchk GET /healthz
  http-check expect status 200
  timeout check 5s
  server one 127.0.0.1:$s_one check inter 200ms fall 3 rise 1
  server two 127.0.0.1:$s_two check inter 200ms fall 3 rise 1
EOF
haproxy -c -f "$WORK/haproxy.cfg" >"$WORK/haproxy-check.log" 2>&1 || { cat "$WORK/haproxy-check.log"; fail "haproxy rejects its configuration"; }
haproxy -db -f "$WORK/haproxy.cfg" >"$WORK/haproxy.log" 2>&1 &
PIDS+=($!)

mkdir -p "$WORK/nginx/logs" "$WORK/nginx/tmp"
chmod -R 777 "$WORK/nginx"
cat >"$WORK/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/tmp/body;
  proxy_temp_path $WORK/nginx/tmp/proxy;
  fastcgi_temp_path $WORK/nginx/tmp/fastcgi;
  uwsgi_temp_path $WORK/nginx/tmp/uwsgi;
  scgi_temp_path $WORK/nginx/tmp/scgi;
  server {
    listen 127.0.0.1:$p_nginx;
    location / {
      proxy_pass http://127.0.0.1:$s_plain;
      proxy_http_version 1.1;
      proxy_set_header Upgrade \$http_upgrade;
      proxy_set_header Connection "upgrade";
      proxy_set_header Host \$host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_bind 127.0.0.4;
      proxy_read_timeout 1h;
    }
  }
}
EOF
nginx -e "$WORK/nginx/logs/error.log" -p "$WORK/nginx" -c "$WORK/nginx.conf" >"$WORK/nginx.out" 2>&1 &
PIDS+=($!)
for port in "$p_v1" "$p_v2" "$p_untrusted" "$p_http" "$p_pool"; do
  wait_for_port "$port" || { cat "$WORK/haproxy.log"; fail "haproxy did not start"; }
done
wait_for_port "$p_nginx" || { cat "$WORK/nginx.out" "$WORK/nginx/logs/error.log"; fail "nginx did not start"; }

# One echo through a proxy with the tool, exit 0.
check_echo() {  # description url
  local what=$1 url=$2 out status
  out=$(printf 'through %s\n' "$what" | timeout 30 "$BIN" connect "$url" --max-messages 1 2>"$WORK/client.err")
  status=$?
  [ "$status" = 0 ] || { cat "$WORK/client.err"; fail "$what: exit status $status"; }
  [ "$out" = "through $what" ] || { cat "$WORK/client.err"; fail "$what: got $(printf '%q' "$out")"; }
}
# Waits until a file has a line matching the pattern (30 s at most).
wait_for_line() {  # file pattern
  for _ in $(seq 300); do grep -qE "$2" "$1" && return 0; sleep 0.1; done; return 1
}
# Waits until a background process exits; fails after 30 s.
wait_for_exit() {  # pid what
  for _ in $(seq 300); do kill -0 "$1" 2>/dev/null || { wait "$1"; return; }; sleep 0.1; done
  fail "$2 did not exit"
}

# PROXY protocol: the tool's echo, then Python's client, whose own port the server must print.
for version in v1 v2; do
  port_var="p_$version"
  check_echo "HAProxy PROXY $version" "ws://127.0.0.1:${!port_var}/$version"
  client_port=$(timeout 30 "$PY" -c '
import sys
from websockets.sync.client import connect
with connect(sys.argv[1]) as ws:
    ws.send("hello")
    assert ws.recv() == "hello"
    print(ws.local_address[1])' "ws://127.0.0.1:${!port_var}/$version-python") || fail "HAProxy $version: Python's client failed"
  wait_for_line "$WORK/proxied.err" "^127\.0\.0\.1:$client_port: connected, resource /$version-python" \
    || { cat "$WORK/proxied.err"; fail "HAProxy $version: the server did not print the client's address 127.0.0.1:$client_port"; }
  echo "lb: HAProxy send-proxy ($version): echo; the server saw the client, 127.0.0.1:$client_port"
done
grep -q "^127\.0\.0\.2" "$WORK/proxied.err" && { cat "$WORK/proxied.err"; fail "the server printed HAProxy's address as a client's"; }

# The same header from 127.0.0.3, which the server does not trust: refused before any WebSocket byte.
printf 'x\n' | timeout 30 "$BIN" connect "ws://127.0.0.1:$p_untrusted/untrusted" >/dev/null 2>"$WORK/client.err"
status=$?
[ "$status" != 0 ] || fail "a PROXY header from an untrusted address: the connection opened"
grep -q "/untrusted" "$WORK/proxied.err" && { cat "$WORK/proxied.err"; fail "an untrusted PROXY header reached the handshake"; }
echo "lb: a PROXY header from 127.0.0.3 (untrusted): refused, the client failed (exit $status): $(head -1 "$WORK/client.err")"

# HTTP mode: HAProxy forwards the upgrade, adds X-Forwarded-For; the server's peer is HAProxy.
check_echo "HAProxy mode http" "ws://127.0.0.1:$p_http/http"
wait_for_line "$WORK/plain.err" '^127\.0\.0\.2:[0-9]+: connected, resource /http, X-Forwarded-For 127\.0\.0\.1$' \
  || { cat "$WORK/plain.err"; fail "HAProxy mode http: no connection from 127.0.0.2 with X-Forwarded-For 127.0.0.1"; }
echo "lb: HAProxy mode http: echo; X-Forwarded-For 127.0.0.1 from 127.0.0.2"

# nginx proxy_pass with the Upgrade and Connection headers.
check_echo "nginx" "ws://127.0.0.1:$p_nginx/nginx"
wait_for_line "$WORK/plain.err" '^127\.0\.0\.4:[0-9]+: connected, resource /nginx, X-Forwarded-For 127\.0\.0\.1$' \
  || { cat "$WORK/plain.err"; fail "nginx: no connection from 127.0.0.4 with X-Forwarded-For 127.0.0.1"; }
echo "lb: nginx proxy_pass: echo; X-Forwarded-For 127.0.0.1 from 127.0.0.4"

# Each balanced server answers its health check itself: 200 and "ok" on its WebSocket port.
for port in "$s_one" "$s_two"; do
  answer=$("$PY" -c 'import sys, urllib.request; r = urllib.request.urlopen(sys.argv[1], timeout=10); print(r.status, r.read().decode())' \
    "http://127.0.0.1:$port/healthz") || fail "GET /healthz on $port failed"
  [ "$answer" = "200 ok" ] || fail "GET /healthz on $port: $answer"
done
echo "lb: serve --health answers 200 ok on the WebSocket port; HAProxy checks it (option httpchk)"

# A drain behind HAProxy: clients spread over two servers, each broadcasting numbered lines; one
# server is stopped (SIGTERM) while it broadcasts. Each of its clients must have every line up to
# where it stopped, none missing, then 1001; the other server's clients go on.
clients=10
for i in $(seq "$clients"); do
  "$BIN" connect "ws://127.0.0.1:$p_pool/pool" -n </dev/null >"$WORK/c$i.out" 2>"$WORK/c$i.err" &
  PIDS+=($!); eval "pid_c$i=$!"
done
for _ in $(seq 300); do
  [ "$(grep -c ': connected' "$WORK/one.err")" = $((clients / 2)) ] && [ "$(grep -c ': connected' "$WORK/two.err")" = $((clients / 2)) ] && break
  sleep 0.1
done
[ "$(grep -c ': connected' "$WORK/one.err")" = $((clients / 2)) ] || { cat "$WORK/one.err" "$WORK/two.err"; fail "HAProxy did not balance the clients over both servers"; }
seq -f 'one-%g' 1 100 >&7
seq -f 'two-%g' 1 100 >&8
for i in $(seq "$clients"); do
  wait_for_line "$WORK/c$i.out" '^(one|two)-100$' || { cat "$WORK/c$i.err"; fail "client $i: the first 100 broadcast lines did not arrive"; }
done
# Lines keep coming while the drain begins.
(seq -f 'one-%g' 101 100000 >&7) 2>/dev/null &
writer=$!
sleep 0.2
kill -TERM "$pid_one"
# Its port closes as the drain begins: HAProxy's next check marks it down.
wait_for_line "$WORK/haproxy.log" 'pool/one is DOWN' || { cat "$WORK/haproxy.log"; fail "HAProxy's health check did not see the drained server go"; }
wait_for_exit "$pid_one" "the drained server"
status=$?
kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null
exec 7>&-
[ "$status" = 0 ] || { cat "$WORK/one.err"; fail "the drained server exited with $status"; }
grep -q "stopped: $((clients / 2)) closed cleanly, 0 lost, 0 aborted" "$WORK/one.err" \
  || { tail -3 "$WORK/one.err"; fail "the drain report"; }
drained=0
for i in $(seq "$clients"); do
  grep -q '^one-' "$WORK/c$i.out" || continue
  pid_var="pid_c$i"
  wait_for_exit "${!pid_var}" "client $i of the drained server"
  grep -q 'closed: 1001' "$WORK/c$i.err" || { cat "$WORK/c$i.err"; fail "client $i of the drained server: no 1001"; }
  count=$(wc -l <"$WORK/c$i.out")
  seq -f 'one-%g' 1 "$count" | cmp -s - "$WORK/c$i.out" || fail "client $i: lines missing or out of order before the Close"
  echo "lb: client $i: $count lines in order, then 1001"
  drained=$((drained + 1))
done
[ "$drained" = $((clients / 2)) ] || fail "$drained clients on the drained server, expected $((clients / 2))"
# The other server's clients are still there, and a new client reaches it.
kill -0 "$pid_two" || fail "the other server stopped"
printf 'late\n' | timeout 30 "$BIN" connect "ws://127.0.0.1:$p_pool/after" --linger 0.5 >/dev/null 2>"$WORK/late.err" \
  || { cat "$WORK/late.err"; fail "a new client after the drain did not connect"; }
grep -q "resource /after" "$WORK/two.err" || fail "the new client did not reach the other server"
for i in $(seq "$clients"); do
  grep -q '^two-' "$WORK/c$i.out" || continue
  pid_var="pid_c$i"
  kill -0 "${!pid_var}" 2>/dev/null || { cat "$WORK/c$i.err"; fail "client $i of the other server ended"; }
done
echo "lb: drain behind HAProxy: $drained clients got every line sent before the Close, then 1001; the others stayed; a new client went to the other server"
echo "lb: all checks passed"
