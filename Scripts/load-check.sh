#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Runs the adapters' test suites ROUNDS times in a row (default 10) while a CPU-bound process runs on
# every core, and fails on the first round that fails. Tests that involve threads, sockets or time must
# pass on a busy machine: this is how that is checked (docs/guide-transport.md).
#
# With --all, every suite runs each round (the whole `swift test`, as CI runs it): the suites that
# block share Swift's cooperative pool with the async ones, and only the whole run shows whether
# they starve them.
#
# usage: Scripts/load-check.sh [--all] [ROUNDS]
set -uo pipefail
cd "$(dirname "$0")/.."
FILTER='WebSocketPOSIXTests|WebSocketAsyncTests|WebSocketTransportTests'
if [ "${1:-}" = "--all" ]; then
  FILTER=''
  shift
fi
ROUNDS="${1:-10}"
LOGS="$(mktemp -d /tmp/websocket-load-check.XXXXXX)"

swift build --build-tests >"$LOGS/build.log" 2>&1 || { cat "$LOGS/build.log"; exit 2; }

cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
burners=()
for _ in $(seq "$cores"); do
  sh -c 'while :; do :; done' &
  burners+=($!)
done
trap 'kill "${burners[@]}" 2>/dev/null' EXIT
filter_args=()
if [ -n "$FILTER" ]; then filter_args=(--filter "$FILTER"); fi
echo "load: $cores busy loops; $ROUNDS rounds of: swift test ${filter_args[*]}"

for round in $(seq "$ROUNDS"); do
  start=$(date +%s)
  if swift test --skip-build "${filter_args[@]}" >"$LOGS/round-$round.log" 2>&1; then
    summary=$(grep -E "Test run with" "$LOGS/round-$round.log" | tail -1)
    echo "round $round: passed in $(( $(date +%s) - start )) s: ${summary#*Test run with }"
  else
    echo "round $round: FAILED after $(( $(date +%s) - start )) s; log: $LOGS/round-$round.log" >&2
    grep -E "✘|recorded an issue|error:" "$LOGS/round-$round.log" | head -30 >&2
    exit 1
  fi
done
echo "all $ROUNDS rounds passed under load (logs: $LOGS)"
