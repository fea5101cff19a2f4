#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Runs the Autobahn|Testsuite against our server (`websocket serve --echo`) and our client
# (`websocket autobahn-client`), and fails unless every case is OK (INFORMATIONAL where the case is
# informational by design) with a clean close: no NON-STRICT, FAILED, UNIMPLEMENTED or UNCLEAN.
#
# usage: Scripts/conformance.sh [server|client|both|wss-server] [CASES]
#   CASES defaults to '*' (all 517 cases, 1.* to 13.*). wss-server runs the server role over TLS
#   (`websocket serve --tls-cert`, certificates made at run time by Scripts/interop/make-certs.sh).
# env:   AUTOBAHN_DIR    the suite (default: ../shared/autobahn beside the project)
#        CONFORMANCE_OUT where reports go (default: a fresh directory under /tmp, outside the tree)
#        CONFORMANCE_EXCLUDE  case patterns to leave out (e.g. '9.*')
#        WEBSOCKET_TOOL  a `websocket` binary already built (default: the release build, built here)
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROLE="${1:-both}"
CASES="${2:-*}"
SUITE="${AUTOBAHN_DIR:-$ROOT/../shared/autobahn}"
if [ ! -x "$SUITE/run.sh" ]; then
  cat >&2 <<MSG
conformance: the Autobahn|Testsuite runner was not found at $SUITE/run.sh.
Get it by placing the project's shared tools beside the project (../shared/autobahn, with run.sh and
setup.sh), or point AUTOBAHN_DIR at a directory holding them. setup.sh installs the suite from PyPI.
MSG
  exit 2
fi
OUT="${CONFORMANCE_OUT:-$(mktemp -d /tmp/websocket-conformance.XXXXXX)}"
EXCLUDE="${CONFORMANCE_EXCLUDE:-}"
mkdir -p "$OUT"

echo "== the websocket tool (release; WEBSOCKET_TOOL names one already built)"
BIN="$("$ROOT/Scripts/websocket-tool.sh")" || exit 2

"$SUITE/setup.sh" >"$OUT/setup.log" 2>&1 || { cat "$OUT/setup.log"; echo "conformance: setup failed" >&2; exit 2; }

pick_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Both roles run on the tool's defaults, which are the library's: no case is meant to exceed them. The
# largest messages (9.1.6, 9.2.6) are 16 MiB, exactly the default frame and message limits (both
# inclusive); the most fragmented (9.3.1, 9.4.1: 4 MiB in 64-byte fragments) take 65,537 frames,
# within the default cap of 2^20. Raise a limit here only for a case that is meant to go past one,
# and name the case.
status=0
exclude_args=()
[ -n "$EXCLUDE" ] && exclude_args=(-x "$EXCLUDE")

run_server() {
  local port
  port=$(pick_port)
  echo "== server role: websocket serve --echo on 127.0.0.1:$port"
  "$BIN" serve --echo --host 127.0.0.1 --port "$port" --deflate >"$OUT/server.log" 2>&1 &
  local server_pid=$!
  "$SUITE/run.sh" server-under-test "127.0.0.1:$port" "$CASES" -o "$OUT/server" -a swift-websocket \
      --strict-close --no-fail "${exclude_args[@]}" >"$OUT/server-run.log" 2>&1
  kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null
  return 0
}

run_wss_server() {
  local port
  port=$(pick_port)
  "$ROOT/Scripts/interop/make-certs.sh" "$OUT/pki" >/dev/null || { echo "conformance: certificates" >&2; exit 2; }
  echo "== server role over TLS: websocket serve --echo --tls-cert on 127.0.0.1:$port"
  "$BIN" serve --echo --host 127.0.0.1 --port "$port" --deflate --tls-cert "$OUT/pki/server.pem" \
      --tls-key "$OUT/pki/server.key" >"$OUT/wss-server.log" 2>&1 &
  local server_pid=$!
  "$SUITE/run.sh" server-under-test "wss://127.0.0.1:$port" "$CASES" -o "$OUT/wss-server" -a swift-websocket \
      --strict-close --no-fail "${exclude_args[@]}" >"$OUT/wss-server-run.log" 2>&1
  kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null
  return 0
}

run_client() {
  local port
  port=$(pick_port)
  echo "== client role: websocket autobahn-client against the fuzzing server on 127.0.0.1:$port"
  "$SUITE/run.sh" client-under-test "$port" "$CASES" -o "$OUT/client" --strict-close --no-fail "${exclude_args[@]}" \
      -- "$BIN" autobahn-client --url "ws://127.0.0.1:$port" --agent swift-websocket --deflate >"$OUT/client-run.log" 2>&1
  return 0
}

# Both roles run at once (each is bound by the suite's own Python process, one core each), which
# halves the wall time; each has its own port and report directory.
case "$ROLE" in
  server) run_server ;;
  client) run_client ;;
  both) run_server & server_job=$!; run_client & client_job=$!; wait "$server_job"; wait "$client_job" ;;
  wss-server) run_wss_server ;;
  *) echo "usage: conformance.sh [server|client|both|wss-server] [CASES]" >&2; exit 2 ;;
esac

# With every case asked for, a case missing from a report is a failure too.
expected=()
[ "$CASES" = "*" ] && [ -z "$EXCLUDE" ] && expected=(--expected 517)
if [ "$ROLE" = server ] || [ "$ROLE" = both ]; then
  python3 "$ROOT/Scripts/conformance_verdict.py" "$OUT/server" server "${expected[@]}" || status=1
fi
if [ "$ROLE" = wss-server ]; then
  python3 "$ROOT/Scripts/conformance_verdict.py" "$OUT/wss-server" server "${expected[@]}" || status=1
fi
if [ "$ROLE" = client ] || [ "$ROLE" = both ]; then
  python3 "$ROOT/Scripts/conformance_verdict.py" "$OUT/client" client "${expected[@]}" || status=1
fi

echo "reports: $OUT"
exit $status
