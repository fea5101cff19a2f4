#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Line and region coverage of WebSocketCore (Sources/WebSocketCore), measured by the tests:
# runs `swift test --enable-code-coverage`, then reads the merged profile SwiftPM leaves in
# .build/debug/codecov with llvm-cov (the toolchain's), and prints one row per file of
# Sources/WebSocketCore and the module total. Fails when the module's line coverage is below the
# threshold, which sits just under what the tests reach (docs/coverage.md), so that a change that
# leaves code untested shows.
#
# usage: Scripts/coverage.sh [--filter PATTERN] [--reuse] [--uncovered FILE]... [--threshold PCT]
#   --filter PATTERN   passed to `swift test --filter` (e.g. WebSocketCoreTests: the core's own tests,
#                      about 40 s once built; without it the whole suite runs, 1-2 minutes). The
#                      first run builds the package once more, instrumented (about 6 minutes on 2 cores)
#   --reuse            no test run: report on the profile the last `--enable-code-coverage` run left
#   --uncovered FILE   also list the lines and regions of FILE that no test ran (a path under
#                      Sources/WebSocketCore, or any unambiguous tail of one: Connection+Send.swift);
#                      may be repeated; `--uncovered all` lists every file's
#   --threshold PCT    the minimum line coverage of the module, in percent (default 98.0; 0: no check)
#
# Exit status: the tests' status if they failed (the report is still printed), 3 if the line
# coverage is below the threshold, 2 on a usage or tooling error, 0 otherwise.
#
# The figures count what the selected tests ran: with --filter WebSocketCoreTests, only the core's own
# tests; without a filter, the adapters' tests too, which drive the core over sockets.
set -uo pipefail
cd "$(dirname "$0")/.."

THRESHOLD=98.0
FILTER=""
REUSE=0
UNCOVERED=()
while [ $# -gt 0 ]; do
  case "$1" in
    --filter) [ $# -ge 2 ] || { echo "--filter needs a pattern" >&2; exit 2; }; FILTER="$2"; shift 2 ;;
    --reuse) REUSE=1; shift ;;
    --uncovered) [ $# -ge 2 ] || { echo "--uncovered needs a file" >&2; exit 2; }; UNCOVERED+=("$2"); shift 2 ;;
    --threshold) [ $# -ge 2 ] || { echo "--threshold needs a percentage" >&2; exit 2; }; THRESHOLD="$2"; shift 2 ;;
    -h|--help) sed -n '/^# Line and region coverage of WebSocketCore/,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done

# The toolchain's llvm-cov: next to swift (Linux toolchains), through xcrun (Xcode), or on PATH.
swift_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
if [ -x "$swift_bin/llvm-cov" ]; then LLVM_COV="$swift_bin/llvm-cov"
elif command -v xcrun >/dev/null 2>&1 && xcrun --find llvm-cov >/dev/null 2>&1; then LLVM_COV="$(xcrun --find llvm-cov)"
elif command -v llvm-cov >/dev/null 2>&1; then LLVM_COV="$(command -v llvm-cov)"
else echo "llvm-cov not found (looked next to swift, with xcrun and on PATH)" >&2; exit 2
fi

test_status=0
if [ "$REUSE" -eq 0 ]; then
  args=(test --enable-code-coverage)
  [ -n "$FILTER" ] && args+=(--filter "$FILTER")
  echo "== swift ${args[*]}"
  swift "${args[@]}"
  test_status=$?
  [ "$test_status" -ne 0 ] && echo "swift test failed with status $test_status; the report below counts what ran" >&2
fi

# SwiftPM merges the run's raw profiles into default.profdata next to the JSON it names.
codecov_dir="$(dirname "$(swift test --show-codecov-path)")"
PROFILE="$codecov_dir/default.profdata"
BIN_DIR="$(swift build --show-bin-path)"
BINARY="$BIN_DIR/swift-websocketPackageTests.xctest"
[ -d "$BINARY" ] && BINARY="$BINARY/Contents/MacOS/swift-websocketPackageTests"   # an Apple bundle
# SwiftPM merges only after tests that pass: after a failure the raw profiles are merged here.
LLVM_PROFDATA="$(dirname "$LLVM_COV")/llvm-profdata"
raw=("$codecov_dir"/*.profraw)
if [ -e "${raw[0]}" ] && { [ ! -f "$PROFILE" ] || [ -n "$(find "$codecov_dir" -name '*.profraw' -newer "$PROFILE")" ]; }; then
  "$LLVM_PROFDATA" merge -sparse "${raw[@]}" -o "$PROFILE" || exit 2
fi
[ -f "$PROFILE" ] || { echo "no profile at $PROFILE: run without --reuse first" >&2; exit 2; }
[ -f "$BINARY" ] || { echo "no test binary at $BINARY" >&2; exit 2; }

SOURCES="$PWD/Sources/WebSocketCore"
export_json="$(mktemp /tmp/websocket-coverage.XXXXXX.json)"
trap 'rm -f "$export_json"' EXIT
# Without -summary-only: the regions are needed for --uncovered.
"$LLVM_COV" export "$BINARY" -instr-profile "$PROFILE" "$SOURCES" >"$export_json" || exit 2

python3 - "$export_json" "$SOURCES" "$THRESHOLD" "${UNCOVERED[@]}" <<'PYTHON'
import json, sys

path, sources, threshold, wanted = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:]
data = json.load(open(path))["data"][0]
files = sorted((f for f in data["files"] if f["filename"].startswith(sources + "/")), key=lambda f: f["filename"])
if not files:
    sys.exit(f"no file of {sources} in the profile")

def rel(name): return name[len(sources) + 1:]
def pct(covered, count): return 100.0 * covered / count if count else 100.0

print(f"\nWebSocketCore coverage ({len(files)} files)\n")
print(f"{'file':<42} {'lines':>7} {'missed':>6} {'cover':>8}   {'regions':>7} {'missed':>6} {'cover':>8}")
tl = tlc = tr = trc = 0
for f in files:
    s = f["summary"]; l, r = s["lines"], s["regions"]
    tl += l["count"]; tlc += l["covered"]; tr += r["count"]; trc += r["covered"]
    print(f"{rel(f['filename']):<42} {l['count']:>7} {l['count'] - l['covered']:>6} {pct(l['covered'], l['count']):>7.2f}%"
          f"   {r['count']:>7} {r['count'] - r['covered']:>6} {pct(r['covered'], r['count']):>7.2f}%")
line_pct = pct(tlc, tl)
print(f"{'TOTAL':<42} {tl:>7} {tl - tlc:>6} {line_pct:>7.2f}%   {tr:>7} {tr - trc:>6} {pct(trc, tr):>7.2f}%")

# --uncovered: lines with a count of 0 (as `llvm-cov show` counts them, from the segments), grouped
# into ranges, then the code regions with a count of 0 that lie on lines that did run (a branch not
# taken, the right of a `??`), outermost only.
def uncovered_lines(f):
    segments = f["segments"]        # [line, col, count, hasCount, isRegionEntry, isGapRegion]
    text = open(f["filename"], encoding="utf-8", errors="replace").read().split("\n")
    missed, current, si = [], None, 0
    for line in range(1, len(text) + 1):
        starts = []
        while si < len(segments) and segments[si][0] == line:
            starts.append(segments[si]); si += 1
        # llvm's LineCoverageStats: a line is counted if a region starts on it or the segment in
        # effect at its start carries a count (and it does not open a skipped region); its count is
        # the largest of the region starts and the segment in effect.
        entries = [s for s in starts if s[3] and s[4] and not s[5]]
        skipped = bool(starts) and not starts[0][3] and starts[0][4]
        wrapped = current is not None and current[3]
        if not skipped and (wrapped or entries):
            count = max(([current[2]] if wrapped else []) + [s[2] for s in entries])
            if count == 0:
                missed.append(line)
        if starts: current = starts[-1]
    return missed, text

def ranges(lines):
    out = []
    for n in lines:
        if out and out[-1][1] == n - 1: out[-1][1] = n
        else: out.append([n, n])
    return out

for want in wanted:
    chosen = files if want == "all" else [f for f in files if rel(f["filename"]) == want or f["filename"].endswith("/" + want)]
    if not chosen:
        print(f"\n--uncovered {want}: no such file under Sources/WebSocketCore"); continue
    for f in chosen:
        name = f["filename"]
        missed, text = uncovered_lines(f)
        missed_set = set(missed)
        regions = []
        for fn in data["functions"]:
            for r in fn["regions"]:     # [lineStart, colStart, lineEnd, colEnd, count, fileID, expandedFileID, kind]
                if r[7] == 0 and r[4] == 0 and fn["filenames"][r[5]] == name:
                    regions.append(tuple(r[:4]))
        regions = sorted(set(regions))
        outer = [r for r in regions if not any(o != r and (o[0], o[1]) <= (r[0], r[1]) and (o[2], o[3]) >= (r[2], r[3]) for o in regions)]
        partial = [r for r in outer if not all(n in missed_set for n in range(r[0], r[2] + 1))]
        print(f"\n{rel(name)}: {len(missed)} lines and {len(partial)} further regions not run")
        for a, b in ranges(missed):
            where = f"{a}" if a == b else f"{a}-{b}"
            print(f"  lines {where:<9} {text[a - 1].strip()[:90]}")
        for r in partial:
            snippet = text[r[0] - 1][r[1] - 1:] if r[0] == r[2] else text[r[0] - 1][r[1] - 1:] + " ..."
            snippet = (snippet[:r[3] - r[1]] if r[0] == r[2] else snippet).strip()
            print(f"  region {r[0]}:{r[1]}-{r[2]}:{r[3]}  {snippet[:80]}")

if threshold > 0 and line_pct < threshold:
    print(f"\nline coverage {line_pct:.2f}% is below the threshold {threshold:.2f}%", file=sys.stderr)
    sys.exit(3)
if threshold > 0:
    print(f"\nline coverage {line_pct:.2f}% (threshold {threshold:.2f}%)")
PYTHON
report_status=$?
[ "$test_status" -ne 0 ] && exit "$test_status"
exit "$report_status"
