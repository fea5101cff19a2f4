#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# The license header of every source file the project owns: lists the files without it (--check) or
# adds it where it is missing (--apply). The header is three comment lines (CONTRIBUTING.md):
#
#   // This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
#   // Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
#   // SPDX-License-Identifier: Apache-2.0
#
# with `#` for `//` in shell and Python files, then a blank line. It opens the file, or follows its
# first line when that line must stay first: a `#!` line, or `// swift-tools-version` in a manifest.
#
# The files: those git tracks, and new ones it does not ignore, that end in .swift, .c, .cpp, .h, .sh or
# .py, or whose first line is `#!` (.ci/run); not the fuzz corpora (Fuzz/Corpus/, data), nor the
# generated or vendored files listed in EXCLUDED below (none today). Module maps, JSON, Markdown,
# dictionaries and suppression files carry no header.
#
# usage: Scripts/license-header.sh --check     list the files without the header; exit 1 if any
#        Scripts/license-header.sh --apply     add the header where it is missing (idempotent); exit
#                                              1 if a file has another license header, to fix by hand
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
case "${1:-}" in
  --check|--apply) MODE="$1" ;;
  *) sed -n '/^# usage:/,/^#  .*to fix by hand$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

# Paths relative to the root; a directory excludes everything under it.
EXCLUDED=(Fuzz/Corpus)

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  list() { git ls-files -z --cached --others --exclude-standard; }
else
  list() { find . \( -name .build -o -name .git -o -name .swiftpm \) -prune -o -type f -print0 | sed -z 's|^\./||'; }
fi

FILES="$(mktemp)"
trap 'rm -f "$FILES"' EXIT
list > "$FILES"
# In braces, so that bash has read to the end before --apply gives this file its header (bash reads a
# script as it runs it, and the file then grows under its reading position).
{
python3 - "$MODE" "$FILES" "${EXCLUDED[@]}" <<'PY'
import os, re, sys

mode, files, excluded = sys.argv[1], sys.argv[2], sys.argv[3:]
TEXT = [
    "This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.",
    "Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).",
    "SPDX-License-Identifier: Apache-2.0",
]
SLASHES = (".swift", ".c", ".cpp", ".h")
HASHES = (".sh", ".py")

def style(path, raw):
    """The comment marker of the file's header, or None for a file that carries none."""
    if any(path == e or path.startswith(e.rstrip("/") + "/") for e in excluded):
        return None
    if path.endswith(SLASHES):
        return "//"
    if path.endswith(HASHES) or raw.startswith(b"#!"):
        return "#"
    return None

def header_at(lines, marker):
    """Where the header goes: after a first line that must stay first, else at the top."""
    if lines and (lines[0].startswith("#!") or (marker == "//" and lines[0].startswith("// swift-tools-version"))):
        return 1
    return 0

paths = sorted(p for p in open(files, encoding="utf-8").read().split("\0") if p and os.path.isfile(p))
missing, foreign, added = [], [], []
for path in paths:
    with open(path, "rb") as f:
        raw = f.read()
    marker = style(path, raw)
    if marker is None:
        continue
    lines = raw.decode("utf-8").split("\n")
    header = [f"{marker} {line}" for line in TEXT]
    at = header_at(lines, marker)
    following = lines[at + len(header)] if at + len(header) < len(lines) else ""
    if lines[at:at + len(header)] == header and following == "":
        continue
    if mode == "--check":
        missing.append(path)
        continue
    if any(re.match(r"(//|#) *SPDX-License-Identifier:", line) for line in lines[:12]):
        foreign.append(path)  # another or a damaged header: adding a second would hide it
        continue
    blank = [] if at < len(lines) and lines[at] == "" else [""]
    lines[at:at] = header + blank
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("\n".join(lines))
    added.append(path)

if mode == "--check":
    for path in missing:
        print(path)
    if missing:
        print(f"license-header: {len(missing)} file(s) without the license header (Scripts/license-header.sh --apply adds it)",
              file=sys.stderr)
        sys.exit(1)
    print("license-header: every source file has the header")
else:
    print(f"license-header: added to {len(added)} file(s)")
    for path in foreign:
        print(f"{path}: a header that is not this one: fix by hand", file=sys.stderr)
    if foreign:
        sys.exit(1)
PY
exit
}
