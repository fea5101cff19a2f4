# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Sourced by the interop scripts (interop-tls.sh, interop-proxies.sh, ...): the background processes
# to stop on exit, the failure message, the venv with Python websockets, the tool (WEBSOCKET_TOOL, or
# the release build: Scripts/websocket-tool.sh) and the interop certificates. Set LABEL (the message
# prefix) and WORK before sourcing.
VENV="${INTEROP_VENV:-/tmp/websocket-interop-venv}"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done; }
trap cleanup EXIT
fail() { echo "$LABEL: FAILED: $*" >&2; exit 1; }
wait_for_file() { for _ in $(seq 200); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }

command -v openssl >/dev/null || fail "the openssl command is missing (Debian package openssl)"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import websockets' 2>/dev/null; then
  python3 -m venv "$VENV" && "$VENV/bin/pip" install -q 'websockets>=13,<18' || fail "cannot install websockets from PyPI"
fi
PY="$VENV/bin/python"
BIN="$("$ROOT/Scripts/websocket-tool.sh" 2>"$WORK/build.log")" || { cat "$WORK/build.log"; fail "build"; }
"$ROOT/Scripts/interop/make-certs.sh" "$WORK/pki" || fail "certificates"
PKI="$WORK/pki"
