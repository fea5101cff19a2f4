#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Rooms across servers through a real Redis (issue 31), with the tool: two `websocket serve --broadcast
# --redis URL` on two ports with one password-protected redis-server act as one room per path (a
# client's messages reach the others in its room on both servers, in order, once each); a third with
# the wrong password says so and serves on its own; Redis restarted while clients stay connected,
# after which the room works across again; and HAProxy balancing the two servers, a client's messages
# reach every client behind it. Python websockets are the clients (Scripts/interop/redis-rooms.py).
# Installs redis-server and haproxy (Debian) when missing. Exits non-zero on the first failed check.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d /tmp/websocket-redis.XXXXXX)"
LABEL=redis
. "$ROOT/Scripts/interop/common.sh"

if ! command -v redis-server >/dev/null || ! command -v haproxy >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server haproxy) >"$WORK/apt.log" 2>&1 \
    || { cat "$WORK/apt.log"; fail "cannot install redis-server and haproxy"; }
fi
echo "redis: $(redis-server --version | cut -d' ' -f1-3), $(haproxy -v 2>&1 | head -1)"

wait_for_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
# wait_for_count FILE PATTERN N: until FILE has N lines matching PATTERN (30 s at most).
wait_for_count() { for _ in $(seq 300); do [ "$(grep -c -E "$2" "$1" 2>/dev/null)" -ge "$3" ] && return 0; sleep 0.1; done; return 1; }
read -r r s1 s2 s3 lb < <("$PY" -c '
import socket
sockets = [socket.socket() for _ in range(5)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))')
PASS="rooms-$RANDOM-pass"

start_redis() {
  redis-server --port "$r" --bind 127.0.0.1 --requirepass "$PASS" --save '' --appendonly no --dir "$WORK" \
    >>"$WORK/redis.log" 2>&1 &
  REDIS_PID=$!
  PIDS+=("$REDIS_PID")
  wait_for_port "$r" || { cat "$WORK/redis.log"; fail "redis-server did not start"; }
}
start_redis

start_serve() {  # name port url: serve --broadcast --redis url, standard input held open
  local name=$1 port=$2 url=$3
  mkfifo "$WORK/$name.in"
  "$BIN" serve --port "$port" --broadcast --redis "$url" <"$WORK/$name.in" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  PIDS+=($!)
  exec {fd}>"$WORK/$name.in"
  wait_for_port "$port" || { cat "$WORK/$name.err"; fail "serve $name did not start"; }
}
start_serve one "$s1" "redis://:$PASS@127.0.0.1:$r"
start_serve two "$s2" "redis://:$PASS@127.0.0.1:$r"
for name in one two; do
  wait_for_count "$WORK/$name.err" '^redis: (subscriber|publisher) connected' 2 \
    || { cat "$WORK/$name.err"; fail "serve $name did not connect to Redis"; }
done

timeout 120 "$PY" "$ROOT/Scripts/interop/redis-rooms.py" across "ws://127.0.0.1:$s1" "ws://127.0.0.1:$s2" \
  || { cat "$WORK/one.err" "$WORK/two.err"; fail "rooms across two servers"; }
echo "redis: across two servers, through redis-server with a password"

# The wrong password: said, retried, and the server serves its own clients meanwhile.
start_serve three "$s3" "redis://:wrong-$PASS@127.0.0.1:$r"
wait_for_count "$WORK/three.err" '^redis: subscriber cut off: .*authentication' 1 \
  || { cat "$WORK/three.err"; fail "a wrong password was not reported"; }
out=$(printf 'alone\n' | timeout 30 "$BIN" connect "ws://127.0.0.1:$s3/solo" 2>&1) \
  || { echo "$out"; cat "$WORK/three.err"; fail "the server with the wrong password does not serve"; }
echo "redis: a wrong password: $(grep -m1 '^redis: subscriber cut off' "$WORK/three.err")"

# Redis restarted while clients are connected: both servers come back (a second "back after" line each).
cat >"$WORK/restart.sh" <<RESTART
set -u
kill $REDIS_PID; while kill -0 $REDIS_PID 2>/dev/null; do sleep 0.1; done
for name in one two; do
  for _ in \$(seq 300); do grep -q -E '^redis: subscriber cut off' "$WORK/\$name.err" && break; sleep 0.1; done
  grep -q -E '^redis: subscriber cut off' "$WORK/\$name.err" || exit 1
done
redis-server --port $r --bind 127.0.0.1 --requirepass "$PASS" --save '' --appendonly no --dir "$WORK" >>"$WORK/redis.log" 2>&1 &
echo \$! >"$WORK/redis.pid"
for name in one two; do
  for _ in \$(seq 300); do [ "\$(grep -c -E '^redis: (subscriber|publisher) back after' "$WORK/\$name.err")" -ge 2 ] && break; sleep 0.1; done
  [ "\$(grep -c -E '^redis: (subscriber|publisher) back after' "$WORK/\$name.err")" -ge 2 ] || exit 1
done
RESTART
timeout 120 "$PY" "$ROOT/Scripts/interop/redis-rooms.py" restart "ws://127.0.0.1:$s1" "ws://127.0.0.1:$s2" "bash $WORK/restart.sh" \
  || { cat "$WORK/one.err" "$WORK/two.err" "$WORK/redis.log"; fail "Redis restarted"; }
[ -s "$WORK/redis.pid" ] && PIDS+=("$(cat "$WORK/redis.pid")")
echo "redis: $(grep -m1 '^redis: subscriber back after' "$WORK/one.err")"

# HAProxy balancing the two servers: a client's messages reach every client behind it.
cat >"$WORK/haproxy.cfg" <<CFG
defaults
  mode tcp
  timeout connect 5s
  timeout client 60s
  timeout server 60s
frontend rooms
  bind 127.0.0.1:$lb
  default_backend servers
backend servers
  balance roundrobin
  server one 127.0.0.1:$s1
  server two 127.0.0.1:$s2
CFG
haproxy -f "$WORK/haproxy.cfg" -db >"$WORK/haproxy.log" 2>&1 &
PIDS+=($!)
wait_for_port "$lb" || { cat "$WORK/haproxy.log"; fail "HAProxy did not start"; }
before_one=$(grep -c 'connected, resource /room' "$WORK/one.err")
before_two=$(grep -c 'connected, resource /room' "$WORK/two.err")
timeout 120 "$PY" "$ROOT/Scripts/interop/redis-rooms.py" balanced "ws://127.0.0.1:$lb" 4 \
  || { cat "$WORK/one.err" "$WORK/two.err"; fail "rooms behind HAProxy"; }
[ "$(grep -c 'connected, resource /room' "$WORK/one.err")" -gt "$before_one" ] \
  && [ "$(grep -c 'connected, resource /room' "$WORK/two.err")" -gt "$before_two" ] \
  || fail "HAProxy did not spread the clients over both servers"
echo "redis: behind HAProxy (roundrobin over both servers)"
echo "redis: all checks passed"
