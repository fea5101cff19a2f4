#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Runs the core in Embedded Swift and checks it against full Swift: Embedded/Transcript.swift, built
# with the core's sources once in Embedded mode (x86_64 Linux, linked against the C library) and
# once in full Swift, drives client and server connections through each other (handshake, messages
# whole and in pieces, fragments, pings, the closing handshake, invalid UTF-8, a limit, the timers, a
# refusal) and prints every event and output byte (as a hash); the two transcripts must be equal. Then
# the same program built for wasm32 runs under wasmtime, and its transcript must be equal too.
#
#   Scripts/embedded-check.sh [WORK_DIR]      (default: .build/embedded-check)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${1:-$root/.build/embedded-check}"
mkdir -p "$work"
mapfile -t sources < <(find "$root/Sources/WebSocketCore" -name '*.swift' | sort)
program="$root/Embedded/Transcript.swift"
common=(-wmo -parse-as-library -O -package-name swift_websocket -module-name Transcript)

# String comparison and Character need the Unicode data tables, a library of their own in Embedded.
tables="$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")/lib/swift/embedded/x86_64-unknown-linux-gnu"
bin="$(dirname "$(readlink -f "$(command -v swiftc)")")"
wasm_tables="$(dirname "$bin")/lib/swift/embedded/wasm32-unknown-none-wasm"
# The three whole-module compiles (Embedded x86-64, full Swift, Embedded wasm32) are independent, and
# each runs on one core: they run side by side.
swiftc -enable-experimental-feature Embedded "${common[@]}" -target x86_64-unknown-linux-gnu \
    -L "$tables" -lswiftUnicodeDataTables \
    -o "$work/transcript-embedded" "${sources[@]}" "$program" 2>"$work/embedded.log" & embedded_job=$!
swiftc "${common[@]}" -o "$work/transcript-full" "${sources[@]}" "$program" 2>"$work/full.log" & full_job=$!
swiftc -enable-experimental-feature Embedded "${common[@]}" -target wasm32-unknown-none-wasm -c \
    -o "$work/transcript-wasm.o" "${sources[@]}" "$program" 2>"$work/wasm.log" & wasm_job=$!
embedded_status=0; wait "$embedded_job" || embedded_status=$?
full_status=0; wait "$full_job" || full_status=$?
wasm_status=0; wait "$wasm_job" || wasm_status=$?
[ "$embedded_status" -eq 0 ] || { cat "$work/embedded.log" >&2; echo "embedded-check: the Embedded build failed" >&2; exit 1; }
[ "$full_status" -eq 0 ] || { cat "$work/full.log" >&2; echo "embedded-check: the full-Swift build failed" >&2; exit 1; }

"$work/transcript-embedded" > "$work/embedded.txt"
"$work/transcript-full" > "$work/full.txt"
if ! diff -u "$work/full.txt" "$work/embedded.txt" > "$work/diff.txt"; then
    head -n 60 "$work/diff.txt" >&2
    echo "embedded-check: the Embedded transcript differs from full Swift's (full diff: $work/diff.txt)" >&2
    exit 1
fi
lines="$(wc -l < "$work/full.txt")"
[ "$lines" -ge 40 ] || { cat "$work/full.txt" >&2; echo "embedded-check: only $lines transcript lines" >&2; exit 1; }
echo "embedded-check: $lines lines of events and output, identical in Embedded and full Swift" \
     "(Embedded binary $(stat -c %s "$work/transcript-embedded") bytes)"

# The same program for WebAssembly (wasm32-unknown-none-wasm), run under wasmtime (PyPI, in a venv of
# our own): the toolchain ships no C library for that target, so Embedded/wasm/runtime.c brings the
# few functions the program links against (memory, output and exit through WASI).
[ "$wasm_status" -eq 0 ] || { cat "$work/wasm.log" >&2; echo "embedded-check: the wasm32 build failed" >&2; exit 1; }
"$bin/clang" --target=wasm32-unknown-unknown -O2 -fno-builtin -ffreestanding -nostdlib -Werror \
    -c -o "$work/runtime-wasm.o" "$root/Embedded/wasm/runtime.c" \
    || { echo "embedded-check: Embedded/wasm/runtime.c did not compile" >&2; exit 1; }
"$bin/lld" -flavor wasm --entry _start --export _start -z stack-size=1048576 -o "$work/transcript.wasm" \
    "$work/transcript-wasm.o" "$work/runtime-wasm.o" "$wasm_tables/libswiftUnicodeDataTables.a" \
    || { echo "embedded-check: the wasm32 link failed" >&2; exit 1; }
venv="$root/.build/wasm-venv"
if ! "$venv/bin/python" -c "import wasmtime" 2>/dev/null; then
    python3 -m venv "$venv" && "$venv/bin/pip" install --quiet wasmtime \
        || { echo "embedded-check: could not install wasmtime from PyPI into $venv" >&2; exit 1; }
fi
"$venv/bin/python" "$root/Embedded/wasm/run.py" "$work/transcript.wasm" "$work/wasm.txt" \
    || { echo "embedded-check: the wasm32 transcript failed under wasmtime" >&2; exit 1; }
if ! diff -u "$work/full.txt" "$work/wasm.txt" > "$work/wasm-diff.txt"; then
    head -n 60 "$work/wasm-diff.txt" >&2
    echo "embedded-check: the wasm32 transcript differs from full Swift's (full diff: $work/wasm-diff.txt)" >&2
    exit 1
fi
echo "embedded-check: the same $lines lines from the wasm32 build under wasmtime" \
     "($(stat -c %s "$work/transcript.wasm") bytes of WebAssembly)"
