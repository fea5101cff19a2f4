#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Checks the Swift sources with the toolchain's swift-format (`swift-format lint --strict`, the
# configuration in .swift-format) and two whitespace checks of our own. Reformats nothing.
#
# What fails:
#   - any finding of a swift-format rule that .swift-format leaves on (the rule's name is in
#     brackets in the message), and any file swift-format cannot parse;
#   - trailing whitespace, and a tab in a line's indentation.
# What is reported by swift-format but not enforced: the findings of its pretty-printer, which would
# lay out every multi-line statement its own way ([Indentation], [LineLength], [AddLines],
# [RemoveLine], [Spacing], [TrailingComma], [EndOfLineComment]). The code aligns continuation lines
# under the opening parenthesis and wraps by hand, which the pretty-printer cannot express, and a
# mass reformat would touch every file. `swift-format format` is not used for the same reason.
#
# usage: Scripts/format-check.sh [PATH...]      (default: Sources Tests Fuzz/Sources Benchmarks)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ $# -gt 0 ]; then PATHS=("$@"); else PATHS=(Sources Tests Fuzz/Sources Benchmarks); fi
if command -v swift-format >/dev/null; then FORMAT=(swift-format); else FORMAT=(swift format); fi

OUTPUT="$(mktemp)"
trap 'rm -f "$OUTPUT"' EXIT
"${FORMAT[@]}" lint --strict --recursive --parallel --configuration .swift-format "${PATHS[@]}" > "$OUTPUT" 2>&1

status=0
python3 - "$OUTPUT" "$ROOT" <<'PY' || status=1
import re, sys
output, root = sys.argv[1:3]
layout = {"Indentation", "LineLength", "AddLines", "RemoveLine", "Spacing", "TrailingComma", "EndOfLineComment"}
finding = re.compile(r"^(.+?):(\d+):(\d+): (?:error|warning): \[(\w+)\] (.*)$")
failed, skipped = 0, 0
for line in open(output, encoding="utf-8", errors="replace"):
    line = line.rstrip("\n")
    if not line:
        continue
    match = finding.match(line)
    if match and match.group(4) in layout:
        skipped += 1
        continue
    failed += 1
    print(line.replace(root + "/", ""), file=sys.stderr)
print(f"format-check: {failed} finding(s); {skipped} layout finding(s) of the pretty-printer not enforced")
sys.exit(1 if failed else 0)
PY

# Whitespace swift-format's rules do not see once the layout findings are set aside.
if find "${PATHS[@]}" -name '*.swift' -print0 | xargs -0 grep -nE '[[:space:]]+$' /dev/null; then
  echo "format-check: trailing whitespace (above)" >&2
  status=1
fi
if find "${PATHS[@]}" -name '*.swift' -print0 | xargs -0 grep -nP '^ *\t' /dev/null; then
  echo "format-check: a tab in the indentation (above)" >&2
  status=1
fi
exit $status
