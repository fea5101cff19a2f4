#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Builds and runs the libFuzzer targets of swift-websocket. See Fuzz/README.md.
#
#   Fuzz/run.sh TARGET SECONDS          build (cached), then fuzz TARGET for SECONDS
#   Fuzz/run.sh --all SECONDS           build once, then fuzz every target for SECONDS each
#                                       (WEBSOCKET_FUZZ_PARALLEL targets at a time)
#   Fuzz/run.sh --list                  the target names, one per line
#   Fuzz/run.sh --build                 build only
#   Fuzz/run.sh --reproduce TARGET FILE run TARGET on one input (a crash file), showing the failure
#   Fuzz/run.sh --minimize TARGET FILE  shrink a crashing input (for 60 s) into FILE.min
#   Fuzz/run.sh --write-seeds           regenerate Fuzz/Corpus/<target>/ from Sources/FuzzSupport/Seeds.swift
#
# Exits non-zero when a target crashes or breaks an invariant; the input is saved under
# $WORK/artifacts/TARGET/. Environment:
#   WEBSOCKET_FUZZ_WORK     working directory, outside the source tree (default: ${TMPDIR:-/tmp}/swift-websocket-fuzz):
#                           build/ (the build), corpus/TARGET/ (the growing corpus), artifacts/, logs/
#   WEBSOCKET_FUZZ_CONFIG   release (default) or debug
#   WEBSOCKET_FUZZ_MAX_LEN  libFuzzer -max_len (default 8192)
#   WEBSOCKET_FUZZ_ARGS     more libFuzzer flags, e.g. "-jobs=2 -workers=2" or "-runs=10000000"
#   WEBSOCKET_FUZZ_PARALLEL how many targets --all fuzzes at once (default 1), each for its SECONDS: with
#                           one per core, the whole run takes that many times less wall time, no target less
set -euo pipefail

FUZZ_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$FUZZ_DIR")"
# Keep in step with `fuzzTargets` in Fuzz/Package.swift.
TARGETS=(frame-server frame-client http-request http-response connection-server connection-client deflate tls-server tls-client proxy-response
         proxy-protocol resp)
WORK="${WEBSOCKET_FUZZ_WORK:-${TMPDIR:-/tmp}/swift-websocket-fuzz}"
CONFIG="${WEBSOCKET_FUZZ_CONFIG:-release}"
MAX_LEN="${WEBSOCKET_FUZZ_MAX_LEN:-8192}"
read -r -a EXTRA_ARGS <<< "${WEBSOCKET_FUZZ_ARGS:-}"
PARALLEL="${WEBSOCKET_FUZZ_PARALLEL:-1}"
[[ $PARALLEL =~ ^[1-9][0-9]*$ ]] || { echo "WEBSOCKET_FUZZ_PARALLEL must be a positive integer" >&2; exit 2; }
BIN=""
# The sanitizer options of every run: a smaller quarantine (an ASAN_OPTIONS of the caller replaces it)
# and the leak suppressions of lsan.supp (start-up allocations that LeakSanitizer cannot see referenced).
export ASAN_OPTIONS="${ASAN_OPTIONS:-quarantine_size_mb=64}"
export LSAN_OPTIONS="suppressions=$FUZZ_DIR/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

usage() {
    sed -n '/^# Builds and runs the libFuzzer targets/,/^#   Fuzz\/run.sh --write-seeds/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

is_target() {
    local t
    for t in "${TARGETS[@]}"; do [ "$t" = "$1" ] && return 0; done
    return 1
}

# Builds every target once per invocation, with libFuzzer and AddressSanitizer, into $WORK/build.
build() {
    [ -n "$BIN" ] && return 0
    local package="$FUZZ_DIR"
    # SwiftPM names a path dependency after its directory; a clone in a directory named "fuzz" would
    # share the identity of this package (Fuzz/), so such a clone is built from a copy.
    if [ "$(basename "$ROOT" | tr '[:upper:]' '[:lower:]')" = "fuzz" ]; then
        local copy="$WORK/source/swift-websocket"
        rm -rf "$WORK/source"
        mkdir -p "$copy"
        (cd "$ROOT" && tar --exclude=.build --exclude=.git -cf - .) | tar -xf - -C "$copy"
        package="$copy/Fuzz"
    fi
    mkdir -p "$WORK"
    echo "== building the fuzz targets ($CONFIG, --sanitize=fuzzer --sanitize=address) in $WORK/build" >&2
    # swiftc keeps only the last -sanitize= flag, and SwiftPM passes --sanitize=fuzzer --sanitize=address as
    # two flags: the code would get AddressSanitizer but no coverage instrumentation, and libFuzzer would
    # fuzz blind ("corp: 1/1b", no "cov:"). The combined flag, appended last, gives both.
    local flags=(--package-path "$package" --scratch-path "$WORK/build" -c "$CONFIG" --sanitize=fuzzer --sanitize=address
                 -Xswiftc -sanitize=fuzzer,address)
    mkdir -p "$WORK/logs"
    local status=0
    swift build "${flags[@]}" > "$WORK/logs/build.log" 2>&1 || status=$?
    # ld.gold's warning about an ASan symbol is harmless; everything else is shown.
    grep -v "Cannot export local symbol '__asan_extra_spill_area'" "$WORK/logs/build.log" >&2 || true
    [ "$status" -eq 0 ] || { echo "== build failed" >&2; exit 1; }
    BIN="$(swift build "${flags[@]}" --show-bin-path)"
    local t
    for t in "${TARGETS[@]}"; do
        [ -x "$BIN/$t" ] || { echo "== $t was not built: is it in Fuzz/Package.swift?" >&2; exit 1; }
    done
}

# Fuzzes one target: its checked-in corpus is copied into a working corpus outside the source tree,
# which libFuzzer grows; a crash is saved in $WORK/artifacts/TARGET/.
run_target() {
    local target="$1" seconds="$2"
    local corpus="$WORK/corpus/$target" artifacts="$WORK/artifacts/$target/" log="$WORK/logs/$target.log"
    # The TLS targets have a dictionary of their own (record headers, handshake types, extensions), and
    # so does proxy-protocol: NAME.dict for the targets named NAME-…, or the target's own TARGET.dict.
    local dict="$FUZZ_DIR/websocket.dict"
    [ -f "$FUZZ_DIR/${target%%-*}.dict" ] && dict="$FUZZ_DIR/${target%%-*}.dict"
    [ -f "$FUZZ_DIR/$target.dict" ] && dict="$FUZZ_DIR/$target.dict"
    mkdir -p "$corpus" "$artifacts" "$WORK/logs"
    cp -n "$FUZZ_DIR/Corpus/$target/"* "$corpus/" 2>/dev/null || true
    echo "== $target for ${seconds}s (corpus $corpus, log $log)" >&2
    local status=0
    # -malloc_limit_mb: no single allocation may approach what a hostile length announces (the largest
    # legitimate one is an amplified message, about 1.5 MiB framed); -rss_limit_mb and the smaller
    # quarantine keep allocator caching from ending a long run with a false out-of-memory report.
    SWIFT_BACKTRACE=enable=no \
        "$BIN/$target" -max_total_time="$seconds" -max_len="$MAX_LEN" -timeout=25 \
        -rss_limit_mb=4096 -malloc_limit_mb=256 \
        -dict="$dict" -artifact_prefix="$artifacts" -print_final_stats=1 \
        "${EXTRA_ARGS[@]}" "$corpus" > "$log" 2>&1 || status=$?
    # The log without the per-input lines: the start, pulses, the final line and stats, any failure.
    grep -E "INFO: (Seed|Loaded|-max_len|A corpus)|pulse|DONE|stat::|ERROR|FUZZ INVARIANT|Fatal error|SUMMARY|Test unit written|Done [0-9]+ runs" "$log" >&2 || true
    if [ "$status" -ne 0 ]; then
        echo "== $target FAILED (exit $status): input saved in $artifacts; full log $log" >&2
        echo "== reproduce: Fuzz/run.sh --reproduce $target $(ls -t "$artifacts" | head -1 | sed "s|^|$artifacts|")" >&2
    fi
    return "$status"
}

summary_line() {
    local log="$WORK/logs/$1.log"
    local done stats
    done="$(grep -E '#[0-9]+[[:space:]]+DONE' "$log" | tail -1 | sed -E 's/.*#([0-9]+)[[:space:]]+DONE[[:space:]]+cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+).* exec\/s: ([0-9]+).*/runs \1, cov \2, ft \3, corpus \4, exec\/s \5/')"
    stats="$(grep -E 'stat::number_of_executed_units' "$log" | tail -1 | awk '{print $2}')"
    printf '%-18s %s\n' "$1" "${done:-no DONE line (crashed?)}${stats:+ (executed units $stats)}"
}

[ $# -ge 1 ] || usage
case "$1" in
--list)
    printf '%s\n' "${TARGETS[@]}"
    ;;
--build)
    build
    echo "$BIN"
    ;;
--all)
    [ $# -eq 2 ] || usage
    build
    failed=()
    if [ "$PARALLEL" -eq 1 ]; then
        for t in "${TARGETS[@]}"; do
            run_target "$t" "$2" || failed+=("$t")
        done
    else
        # Up to PARALLEL targets at once, each in the background; each one's exit status is kept in a
        # file, as `wait -n` does not say which job ended.
        for t in "${TARGETS[@]}"; do
            while [ "$(jobs -rp | wc -l)" -ge "$PARALLEL" ]; do wait -n || true; done
            rm -f "$WORK/logs/$t.status"
            mkdir -p "$WORK/logs"
            ( status=0; run_target "$t" "$2" || status=$?; echo "$status" > "$WORK/logs/$t.status" ) &
        done
        wait
        for t in "${TARGETS[@]}"; do
            [ "$(cat "$WORK/logs/$t.status" 2>/dev/null)" = 0 ] || failed+=("$t")
        done
    fi
    echo "== summary" >&2
    for t in "${TARGETS[@]}"; do summary_line "$t" >&2; done
    if [ ${#failed[@]} -gt 0 ]; then
        echo "== FAILED: ${failed[*]}" >&2
        exit 1
    fi
    ;;
--reproduce)
    [ $# -eq 3 ] && is_target "$2" || usage
    build
    SWIFT_BACKTRACE=enable=no "$BIN/$2" "$3"
    ;;
--minimize)
    [ $# -eq 3 ] && is_target "$2" || usage
    build
    SWIFT_BACKTRACE=enable=no "$BIN/$2" -minimize_crash=1 -max_total_time=60 -exact_artifact_path="$3.min" "$3" \
        > "$WORK/logs/minimize.log" 2>&1 || true
    [ -f "$3.min" ] || { echo "== no smaller input found (log $WORK/logs/minimize.log)" >&2; exit 1; }
    echo "== $(wc -c < "$3") bytes -> $(wc -c < "$3.min") bytes: $3.min" >&2
    ;;
--write-seeds)
    build
    for t in "${TARGETS[@]}"; do
        # Crash files kept as seeds (crash-*) are not generated: keep them.
        mkdir -p "$FUZZ_DIR/Corpus/$t"
        find "$FUZZ_DIR/Corpus/$t" -type f ! -name 'crash-*' -delete
        WEBSOCKET_FUZZ_WRITE_SEEDS="$FUZZ_DIR/Corpus/$t" "$BIN/$t"
    done
    ;;
-*)
    usage
    ;;
*)
    [ $# -eq 2 ] && is_target "$1" || { echo "unknown target or missing SECONDS: $* (targets: ${TARGETS[*]})" >&2; exit 2; }
    build
    run_target "$1" "$2"
    summary_line "$1" >&2
    ;;
esac
