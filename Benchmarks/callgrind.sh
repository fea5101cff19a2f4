#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Instructions per frame for one parse or serialize workload, counted by callgrind (stable on a
# noisy machine).
#
# usage: Benchmarks/callgrind.sh WORKLOAD [FRAMES]
#   Runs `websocket-bench WORKLOAD --frames N --wire-frames 2*FRAMES` for N = FRAMES and 2*FRAMES
#   (default FRAMES 2000) under
#   `valgrind --tool=callgrind`, and prints the difference divided by FRAMES: start-up and set-up
#   (the same wire of 2*FRAMES frames in both runs) cancel out. valgrind 3.19 cannot read Swift 6.3's DWARF 5, so it runs on a copy of the
#   binary stripped of debug info (the same code).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORKLOAD="${1:?usage: callgrind.sh WORKLOAD [FRAMES]}"
FRAMES="${2:-2000}"
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
cd "$ROOT"
swift build -c release --product websocket-bench >/dev/null
BIN="$(swift build -c release --show-bin-path)/websocket-bench"
WORK="$(mktemp -d /tmp/websocket-callgrind.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
cp "$BIN" "$WORK/bench"
strip --strip-debug "$WORK/bench"

count() {
  valgrind --tool=callgrind --callgrind-out-file="$WORK/out.$1" "$WORK/bench" "$WORKLOAD" --frames "$1" --wire-frames $((FRAMES * 2)) >/dev/null 2>"$WORK/log.$1"
  grep -E "^(summary|totals):" "$WORK/out.$1" | head -1 | awk '{print $2}'
}
one=$(count "$FRAMES")
two=$(count $((FRAMES * 2)))
echo "instructions for $FRAMES frames: $one"
echo "instructions for $((FRAMES * 2)) frames: $two"
echo "instructions per frame: $(( (two - one) / FRAMES ))"
