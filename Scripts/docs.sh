#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Builds the DocC documentation of every library module with the toolchain's `docc` (no
# swift-docc-plugin: the package has no dependencies), and fails on any docc warning or error,
# broken ``Symbol`` links in doc comments included.
#
#   1. `swift package dump-symbol-graph` (reuses the debug build) writes each module's symbol graph.
#   2. The catalogs Sources/<Module>/<Module>.docc (WebSocketCore's holds the landing page) are
#      staged in one scratch catalog, with the guides of docs/ (guide-*.md, architecture.md) as
#      articles: docs/ is their one source of truth (the README links there); the copies are made
#      here, with links between guides rewritten to <doc:…> links. Edit the guides in docs/.
#   3. `docc convert` builds one archive of all the library modules and writes its diagnostics as
#      JSON; any warning or error fails the script, except those listed in
#      Scripts/docs-known-warnings.txt (see there).
#
# usage: Scripts/docs.sh        (the archive: $DOCS_OUT/swift-websocket.doccarchive, default .build/docs)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="${DOCS_OUT:-$ROOT/.build/docs}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/swift-websocket-docs.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
DOCC="$(command -v docc || echo "$(dirname "$(command -v swift)")/docc")"
MODULES=(WebSocketCore WebSocketDeflate WebSocketTransport WebSocketTLS WebSocketPOSIX WebSocketAsync WebSocketRedis)

# Its exit status is not used: it also tries the test-discovery modules, which fail when the tests
# have not been built in this configuration. The graphs of the library modules are checked instead,
# after deleting the old ones.
GRAPHS="$(swift build --show-bin-path)/../symbolgraph"
for module in "${MODULES[@]}"; do rm -f "$GRAPHS/$module.symbols.json" "$GRAPHS/$module"@*.symbols.json; done
swift package dump-symbol-graph --skip-synthesized-members > "$WORK/dump.log" 2>&1 || true
for module in "${MODULES[@]}"; do
  [ -f "$GRAPHS/$module.symbols.json" ] || { cat "$WORK/dump.log"; echo "docs: no symbol graph for $module" >&2; exit 1; }
done

# One archive for every module: their doc comments link to each other's symbols (an adapter's to
# `WebSocketTransport/WebSocketError`, the transport's to `WebSocketCore/Connection`), and docc
# resolves those links only within one build. Links to another module's symbol are spelled with
# the module's name, as ``WebSocketTransport/WebSocketError``.
mkdir -p "$WORK/graphs" "$OUT"
for module in "${MODULES[@]}"; do
  cp "$GRAPHS/$module.symbols.json" "$WORK/graphs/"
  cp "$GRAPHS/$module"@*.symbols.json "$WORK/graphs/" 2>/dev/null || true
done
CATALOG="$WORK/swift-websocket.docc"
mkdir -p "$CATALOG"
for module in "${MODULES[@]}"; do
  [ -d "Sources/$module/$module.docc" ] && cp -R "Sources/$module/$module.docc/." "$CATALOG/"
done
python3 - "$CATALOG" docs/guide-*.md docs/architecture.md <<'PY'
import os, re, sys
catalog, guides = sys.argv[1], sys.argv[2:]
names = {os.path.basename(g)[:-3] for g in guides}
def link(match):
    target = match.group(2)
    page, _, anchor = target.partition("#")
    name = os.path.basename(page)[:-3]
    if name in names:
        return f"<doc:{name}#{anchor}>" if anchor else f"<doc:{name}>"
    return match.group(0)
for guide in guides:
    text = open(guide, encoding="utf-8").read()
    # [text](guide-x.md) and [text](docs/guide-x.md) become the article's own link.
    text = re.sub(r"\[([^\]]*)\]\(((?:docs/)?[\w-]+\.md(?:#[\w-]+)?)\)", link, text)
    open(os.path.join(catalog, os.path.basename(guide)), "w", encoding="utf-8").write(text)
PY

ARCHIVE="$OUT/swift-websocket.doccarchive"
rm -rf "$ARCHIVE"
if ! "$DOCC" convert "$CATALOG" \
      --additional-symbol-graph-dir "$WORK/graphs" \
      --fallback-display-name swift-websocket \
      --fallback-bundle-identifier org.swift-websocket \
      --output-path "$ARCHIVE" \
      --diagnostics-file "$WORK/diagnostics.json" > "$WORK/docc.log" 2>&1; then
  cat "$WORK/docc.log"
  echo "docs: docc convert failed" >&2
  exit 1
fi
python3 - "$WORK/diagnostics.json" "$ROOT" "$CATALOG" "$ROOT/Scripts/docs-known-warnings.txt" <<'PY'
import json, os, sys
diagnostics, root, catalog, known_path = sys.argv[1:5]
known = set()
for line in open(known_path, encoding="utf-8"):
    line = line.strip()
    if line and not line.startswith("#"):
        known.add(line)
catalogs = {}
for module in os.listdir(os.path.join(root, "Sources")):
    directory = os.path.join(root, "Sources", module, module + ".docc")
    if os.path.isdir(directory):
        for name in os.listdir(directory):
            catalogs[name] = f"Sources/{module}/{module}.docc/{name}"
def where(source):
    path = (source or "").removeprefix("file://")
    # The staged copies: report the file to edit.
    if path.startswith(catalog + "/"):
        name = path[len(catalog) + 1:]
        path = catalogs.get(name, f"docs/{name}")
    return path.removeprefix(root + "/")
failed = 0
for d in json.load(open(diagnostics)).get("diagnostics", []):
    if d.get("severity") not in ("warning", "error"):
        continue
    path = where(d.get("source"))
    key = f"{path}: {d['summary']}"
    line = d.get("range", {}).get("start", {}).get("line", 0)
    if key in known:
        print(f"docs: known (Scripts/docs-known-warnings.txt), to fix: {path}:{line}: {d['summary']}")
        continue
    failed += 1
    print(f"{path}:{line}: {d['severity']}: {d['summary']}", file=sys.stderr)
if failed:
    print(f"docs: {failed} docc diagnostic(s)", file=sys.stderr)
sys.exit(1 if failed else 0)
PY
echo "docs: $ARCHIVE"
