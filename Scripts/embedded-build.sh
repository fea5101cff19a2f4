#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Builds WebSocketCore in Embedded Swift for each target the core is meant to run on (a Cortex-M, a
# RISC-V microcontroller, WebAssembly, and x86-64 Linux), with the toolchain's Embedded standard
# library, and prints the code size of each object. Fails on any error or warning.
#
#   Scripts/embedded-build.sh [OUTPUT_DIR]      (default: .build/embedded)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/.build/embedded}"
mkdir -p "$out"
mapfile -t sources < <(find "$root/Sources/WebSocketCore" -name '*.swift' | sort)
targets=(armv7em-none-none-eabi riscv32-none-none-eabi wasm32-unknown-none-wasm x86_64-unknown-linux-gnu)
# Each build is one whole-module compile on one core: they run side by side, one per core
# (EMBEDDED_JOBS overrides), and report in the order above.
jobs="${EMBEDDED_JOBS:-$(nproc 2>/dev/null || echo 1)}"
build() {
    local target="$1" object="$out/WebSocketCore-$1.o" log="$out/$1.log"
    if ! swiftc -enable-experimental-feature Embedded -wmo -parse-as-library -Osize -package-name swift_websocket \
        -target "$target" -module-name WebSocketCore -c -o "$object" "${sources[@]}" >"$log" 2>&1; then
        echo failed > "$out/$target.status"
        return
    fi
    if grep -qE "warning:|error:" "$log"; then echo diagnostics > "$out/$target.status"; else echo ok > "$out/$target.status"; fi
}
for target in "${targets[@]}"; do
    rm -f "$out/$target.status"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    build "$target" &
done
wait
status=0
printf '| target | text bytes (-Osize) |\n| --- | --- |\n'
for target in "${targets[@]}"; do
    object="$out/WebSocketCore-$target.o"
    log="$out/$target.log"
    case "$(cat "$out/$target.status" 2>/dev/null)" in
        ok) ;;
        diagnostics) echo "embedded-build: $target built with diagnostics:" >&2; cat "$log" >&2; status=1 ;;
        *) echo "embedded-build: $target failed:" >&2; cat "$log" >&2; status=1; continue ;;
    esac
    # The sizes of the object's code sections (llvm-size reads every format, wasm included).
    size="$(llvm-size "$object" 2>/dev/null | awk 'NR == 2 { print $1 }')"
    if [ -z "$size" ]; then size="$(size "$object" 2>/dev/null | awk 'NR == 2 { print $1 }')"; fi
    printf '| %s | %s |\n' "$target" "${size:-?}"
done
exit "$status"
