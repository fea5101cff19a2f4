#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Compiles every ```swift snippet of README.md as the top-level code (main.swift) of its own executable,
# in a scratch package that depends on this one, so that the README's examples keep compiling as the
# API changes. They are compiled, not run (servers in them would serve forever). Only blocks fenced
# exactly ```swift count: an excerpt of a manifest is fenced ```swift Package.swift (GitHub colours it
# by the first word), and is not compiled.
#
# usage: Scripts/check-readme.sh            (the scratch package goes under $TMPDIR)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${README_CHECK_WORK:-${TMPDIR:-/tmp}/swift-websocket-readme}"
rm -rf "$WORK/Sources"
mkdir -p "$WORK/Sources"

count=$(python3 - "$ROOT/README.md" "$WORK/Sources" "$ROOT/Scripts/readme/Prelude.swift" <<'PY'
import os, re, sys
readme, out, prelude = sys.argv[1:4]
text = open(readme).read()
blocks = re.findall(r"```swift\n(.*?)```", text, re.S)
for index, block in enumerate(blocks, 1):
    directory = os.path.join(out, f"snippet{index}")
    os.makedirs(directory)
    open(os.path.join(directory, "main.swift"), "w").write(block)
    open(os.path.join(directory, "Prelude.swift"), "w").write(open(prelude).read())
print(len(blocks))
PY
)
[ "$count" -gt 0 ] || { echo "check-readme: no swift snippet in README.md" >&2; exit 1; }

{
  echo '// swift-tools-version:6.0'
  echo 'import PackageDescription'
  echo 'let package = Package(name: "readme-snippets", dependencies: [.package(name: "swift-websocket", path: "'"$ROOT"'")], targets: ['
  for i in $(seq "$count"); do
    echo '  .executableTarget(name: "snippet'"$i"'", dependencies: ['
    echo '    .product(name: "WebSocketCore", package: "swift-websocket"), .product(name: "WebSocketPOSIX", package: "swift-websocket"),'
    echo '    .product(name: "WebSocketAsync", package: "swift-websocket"), .product(name: "WebSocketDeflate", package: "swift-websocket"),'
    if grep -q '"WebSocketTLS"' "$ROOT/Package.swift"; then
      echo '    .product(name: "WebSocketTLS", package: "swift-websocket"),'
    fi
    echo '  ]),'
  done
  echo '], swiftLanguageModes: [.v6])'
} > "$WORK/Package.swift"

echo "check-readme: compiling $count snippets of README.md"
if ! (cd "$WORK" && swift build 2>&1 | tee "$WORK/build.log" | grep -E "error|warning: " ); then :; fi
if grep -qE "error:|warning: " "$WORK/build.log"; then
  echo "check-readme: a README snippet does not compile cleanly (snippet N is the N-th \`\`\`swift block; $WORK/build.log)" >&2
  exit 1
fi
grep -q "Build complete" "$WORK/build.log" || { tail -20 "$WORK/build.log"; exit 1; }
echo "check-readme: all $count snippets compile"
