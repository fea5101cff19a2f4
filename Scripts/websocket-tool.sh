#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Prints the path of the `websocket` tool that the conformance and interop scripts drive: the binary
# named by WEBSOCKET_TOOL when it is set (CI passes its deployable build, Scripts/build-static.sh,
# so that the release code is compiled once), otherwise the release build, built here when needed.
# The build's output goes to standard error; the path alone to standard output.
#
# usage: BIN="$(Scripts/websocket-tool.sh)" || exit 2
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -n "${WEBSOCKET_TOOL:-}" ]; then
  [ -x "$WEBSOCKET_TOOL" ] || { echo "WEBSOCKET_TOOL is not an executable: $WEBSOCKET_TOOL" >&2; exit 2; }
  echo "$WEBSOCKET_TOOL"
  exit 0
fi
(cd "$ROOT" && swift build -c release --product websocket >&2)
echo "$(cd "$ROOT" && swift build -c release --show-bin-path)/websocket"
