#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# TLS interop with a third-party WebSocket implementation, both directions, over real sockets:
# Python `websockets` with the `ssl` module (installed into a venv by this script) as a wss server
# against `websocket connect`, and as a client against `websocket serve --tls-cert`. Also: an
# untrusted server, pins that match and that do not, mutual TLS, certificates chosen by server name
# (SNI) and session resumption. Certificates are made here
# (Scripts/interop/make-certs.sh, the openssl command), at run time.
#
# usage: Scripts/interop-tls.sh        env: INTEROP_VENV (default /tmp/websocket-interop-venv)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d /tmp/websocket-interop.XXXXXX)"
LABEL=interop
. "$ROOT/Scripts/interop/common.sh"
echo "interop: websockets $("$PY" -c 'import websockets; print(websockets.__version__)'), $(openssl version)"

# Called as a command, not inside $(...): in a subshell the pid would not reach PIDS, and the server
# would outlive the script. The port is read from the file afterwards.
start_python_server() {  # portfile cert key [client-ca]
  "$PY" "$ROOT/Scripts/interop/peer.py" server "$@" >"$WORK/pyserver-$$.log" 2>&1 &
  PIDS+=($!)
  wait_for_file "$1" || fail "the Python server did not start"
}

# 1. Python websockets serves wss; our client connects, verifying with the test CA.
start_python_server "$WORK/port1" "$PKI/server.pem" "$PKI/server.key"; port=$(cat "$WORK/port1")
out=$(printf 'one\ntwo\nκόσμε\n' | "$BIN" connect "wss://localhost:$port/" --cacert "$PKI/ca.pem" --max-messages 3 --linger 30 2>"$WORK/c1.err")
status=$?
[ "$status" = 0 ] || { cat "$WORK/c1.err"; fail "our client against Python's wss server exited with $status"; }
[ "$out" = "$(printf 'one\ntwo\nκόσμε')" ] || fail "our client got $(printf '%q' "$out")"
echo "interop: our client -> websockets wss server: 3 echoes, exit 0"

# 2. The same by IP address, with the server key's pin.
out=$(printf 'pinned\n' | "$BIN" connect "wss://127.0.0.1:$port/" --cacert "$PKI/ca.pem" --pin "$(cat "$PKI/server.pin")" -1 --linger 30 2>"$WORK/c2.err")
[ $? = 0 ] && [ "$out" = "pinned" ] || { cat "$WORK/c2.err"; fail "pinned connection by address"; }
echo "interop: our client -> websockets, by address, pin matches: ok"

# 3. A pin that does not match: refused, exit 4, and the reason said.
printf 'x\n' | "$BIN" connect "wss://localhost:$port/" --cacert "$PKI/ca.pem" \
    --pin "sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" >/dev/null 2>"$WORK/c3.err"
status=$?
[ "$status" = 4 ] && grep -q "pinned public keys" "$WORK/c3.err" || { cat "$WORK/c3.err"; fail "a wrong pin gave $status"; }
echo "interop: a wrong pin is refused (exit 4): $(tail -1 "$WORK/c3.err")"

# 4. The system roots do not know the test CA: refused.
printf 'x\n' | "$BIN" connect "wss://localhost:$port/" >/dev/null 2>"$WORK/c4.err"
status=$?
[ "$status" = 4 ] && grep -q "not signed by a trusted authority" "$WORK/c4.err" || { cat "$WORK/c4.err"; fail "an untrusted server gave $status"; }
echo "interop: an untrusted server is refused (exit 4): $(tail -1 "$WORK/c4.err")"

# 5. -k connects anyway, with a warning.
out=$(printf 'insecure\n' | "$BIN" connect "wss://localhost:$port/" -k -1 --linger 30 2>"$WORK/c5.err")
[ $? = 0 ] && [ "$out" = "insecure" ] && grep -q "NOT verified" "$WORK/c5.err" || { cat "$WORK/c5.err"; fail "-k"; }
echo "interop: -k connects, and warns"

# 6. Our server serves wss; Python's client verifies it and checks four echoes and a clean close.
"$BIN" serve --echo --port 0 --tls-cert "$PKI/server.pem" --tls-key "$PKI/server.key" >"$WORK/s1.out" 2>"$WORK/s1.err" &
PIDS+=($!)
for _ in $(seq 200); do grep -q "listening on" "$WORK/s1.err" && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$WORK/s1.err" | head -1)
case "$url" in wss://127.0.0.1:*) ;; *) cat "$WORK/s1.err"; fail "our server printed '$url'";; esac
port=${url#wss://127.0.0.1:}; port=${port%/}
"$PY" "$ROOT/Scripts/interop/peer.py" client "wss://localhost:$port/" "$PKI/ca.pem" || fail "websockets client against our wss server"

# 7. Python's client does not trust another CA's certificate on our server (our server is fine).
"$BIN" serve --echo --port 0 --tls-cert "$PKI/other.pem" --tls-key "$PKI/other.key" >"$WORK/s2.out" 2>"$WORK/s2.err" &
PIDS+=($!)
for _ in $(seq 200); do grep -q "listening on" "$WORK/s2.err" && break; sleep 0.1; done
port2=$(sed -n 's/^listening on wss:\/\/127.0.0.1:\([0-9]*\)\/$/\1/p' "$WORK/s2.err")
if "$PY" "$ROOT/Scripts/interop/peer.py" client "wss://localhost:$port2/" "$PKI/ca.pem" 2>"$WORK/p7.err"; then
  fail "Python trusted a certificate of another CA"
fi
grep -q "CERTIFICATE_VERIFY_FAILED" "$WORK/p7.err" || { cat "$WORK/p7.err"; fail "unexpected Python failure"; }
"$PY" "$ROOT/Scripts/interop/peer.py" client "wss://localhost:$port/" "$PKI/ca.pem" >/dev/null || fail "our server after a refused client"
echo "interop: websockets refuses our server's foreign certificate; the server goes on"

# 8. Mutual TLS: our server requires a client certificate from the CA; Python presents one, then none.
"$BIN" serve --echo --port 0 --tls-cert "$PKI/server.pem" --tls-key "$PKI/server.key" --client-ca "$PKI/ca.pem" \
    >"$WORK/s3.out" 2>"$WORK/s3.err" &
PIDS+=($!)
for _ in $(seq 200); do grep -q "listening on" "$WORK/s3.err" && break; sleep 0.1; done
port3=$(sed -n 's/^listening on wss:\/\/127.0.0.1:\([0-9]*\)\/$/\1/p' "$WORK/s3.err")
"$PY" "$ROOT/Scripts/interop/peer.py" client "wss://localhost:$port3/" "$PKI/ca.pem" "$PKI/client.pem" "$PKI/client.key" \
    || fail "mutual TLS with a client certificate"
if "$PY" "$ROOT/Scripts/interop/peer.py" client "wss://localhost:$port3/" "$PKI/ca.pem" >/dev/null 2>&1; then
  fail "our server accepted a client without a certificate"
fi
echo "interop: mutual TLS: a client certificate is required and accepted"

# 9. And our client presents one to Python's server that requires it.
start_python_server "$WORK/port4" "$PKI/server.pem" "$PKI/server.key" "$PKI/ca.pem"; port4=$(cat "$WORK/port4")
out=$(printf 'mutual\n' | "$BIN" connect "wss://localhost:$port4/" --cacert "$PKI/ca.pem" --cert "$PKI/client.pem" --key "$PKI/client.key" -1 --linger 30 2>"$WORK/c9.err")
[ $? = 0 ] && [ "$out" = "mutual" ] || { cat "$WORK/c9.err"; fail "our client certificate to Python's server"; }
echo "interop: our client certificate is accepted by websockets"
# 10. The tool's input and output modes against Python's echo server (port 1): the end-of-input wait
# with the default linger (two lines in, two answers out), a binary file through -b --no-line-split
# --raw-output unchanged, --jsonl events, invalid UTF-8 refused.
for round in 1 2 3 4 5; do
  out=$(printf 'a\nb\n' | "$BIN" connect "wss://localhost:$port/" --cacert "$PKI/ca.pem" 2>"$WORK/c10.err")
  [ $? = 0 ] && [ "$out" = "$(printf 'a\nb')" ] || { cat "$WORK/c10.err"; fail "round $round: two lines gave $(printf '%q' "$out")"; }
done
head -c 100000 /dev/urandom > "$WORK/random.bin"
"$BIN" connect "wss://localhost:$port/" --cacert "$PKI/ca.pem" -b --no-line-split --raw-output -1 <"$WORK/random.bin" >"$WORK/random.out" 2>"$WORK/c10b.err" \
  || { cat "$WORK/c10b.err"; fail "binary round trip exited with $?"; }
cmp -s "$WORK/random.bin" "$WORK/random.out" || fail "100,000 random bytes came back changed ($(wc -c <"$WORK/random.out") bytes)"
out=$(printf 'json\n' | "$BIN" connect "wss://localhost:$port/" --cacert "$PKI/ca.pem" --jsonl -1 2>"$WORK/c10c.err")
printf '%s\n' "$out" | "$PY" -c '
import json, sys
events = [json.loads(line) for line in sys.stdin]
types = [e["type"] for e in events]
assert types == ["open", "text", "close"], types
assert events[1]["data"] == "json" and events[2]["code"] == 1000 and events[2]["clean"] is True, events
assert all(isinstance(e["time"], float) for e in events), events
' || fail "--jsonl gave $out"
printf 'ok\n\377\n' | "$BIN" connect "wss://localhost:$port/" --cacert "$PKI/ca.pem" >/dev/null 2>"$WORK/c10d.err"
status=$?
[ "$status" = 2 ] && grep -q "not valid UTF-8" "$WORK/c10d.err" || { cat "$WORK/c10d.err"; fail "invalid UTF-8 gave $status"; }
echo "interop: the tool against websockets: end-of-input wait x5, 100,000 binary bytes unchanged, --jsonl, invalid UTF-8 refused"
# 11. SNI: our server holds two certificates; Python asks for each name and verifies what it gets
# (the default for localhost, the second for sni.interop.test), an echo over each.
"$BIN" serve --echo --port 0 --tls-cert "$PKI/server.pem" --tls-key "$PKI/server.key" \
  --tls-cert "$PKI/sni.pem" --tls-key "$PKI/sni.key" >"$WORK/s11.out" 2>"$WORK/s11.err" &
PIDS+=($!)
for _ in $(seq 200); do grep -q "listening on" "$WORK/s11.err" && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$WORK/s11.err" | head -1)
port11=${url#wss://127.0.0.1:}; port11=${port11%/}
out=$("$PY" "$ROOT/Scripts/interop/peer.py" sni-client "$port11" "$PKI/ca.pem" sni.interop.test) || fail "SNI: sni.interop.test"
case "$out" in *"CN=sni.interop.test"*) ;; *) fail "SNI: asked for sni.interop.test, $out";; esac
out=$("$PY" "$ROOT/Scripts/interop/peer.py" sni-client "$port11" "$PKI/ca.pem" localhost) || fail "SNI: localhost"
case "$out" in *"CN=localhost"*) ;; *) fail "SNI: asked for localhost, $out";; esac
echo "interop: SNI, Python's client gets the certificate of the name it asks for (two names, one server)"

# 12. Resumption: Python's client offers the session of its first connection to our server (its
# default TLS 1.3 tickets) and the second handshake resumes it.
"$PY" "$ROOT/Scripts/interop/peer.py" resume-client "$port11" "$PKI/ca.pem" || fail "resumption against our server"
echo "interop: resumption, Python's second connection to our server resumed the first one's session"
# 13. The key log: our server's (--keylog) holds every line Python's own key log (OpenSSL's NSS
# format, written by Python's ssl module) has for the same connection, secret for secret.
"$BIN" serve --echo --port 0 --tls-cert "$PKI/server.pem" --tls-key "$PKI/server.key" --keylog "$WORK/server.keys" \
  >"$WORK/s13.out" 2>"$WORK/s13.err" &
PIDS+=($!)
for _ in $(seq 200); do grep -q "listening on" "$WORK/s13.err" && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$WORK/s13.err" | head -1)
port13=${url#wss://127.0.0.1:}; port13=${port13%/}
"$PY" "$ROOT/Scripts/interop/peer.py" keylog-client "$port13" "$PKI/ca.pem" "$WORK/python.keys" >/dev/null || fail "key log client"
grep -v '^#' "$WORK/python.keys" | grep -c . >"$WORK/keylines" || true
[ "$(cat "$WORK/keylines")" -ge 5 ] || fail "Python's key log has $(cat "$WORK/keylines") lines"
missing=$(grep -v '^#' "$WORK/python.keys" | grep -v -x -F -f "$WORK/server.keys" || true)
[ -z "$missing" ] || fail "lines of Python's key log missing from ours: $missing"
echo "interop: the key log, every line Python's ssl wrote for the connection is in ours ($(cat "$WORK/keylines") lines)"
echo "interop: all checks passed"
