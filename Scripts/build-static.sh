#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Builds a product as a server is best deployed on Linux: release, the Swift runtime linked in
# (`--static-swift-stdlib`), and linked so that the loader touches little at start, which is most of a
# small server's resident memory (docs/performance.md, "A deployed server's resident memory"):
#
# - lld, the linker the toolchain ships (ld.lld next to swiftc), when it is there;
# - relative relocations packed (`-z pack-relative-relocs`, DT_RELR): the static runtime's table of
#   about 28,000 of them (668 KiB, all read at every start) becomes 5 KiB. The binary then needs glibc
#   2.36 or later where it runs: packed only when the building machine's glibc is that recent, and
#   never with WEBSOCKET_STATIC_RELR=0;
# - no symbol exported (`--no-export-dynamic`, after the toolchain's `-export-dynamic`): the binary's
#   own 4,000 symbols stay out of the dynamic symbol table, which every library's symbol lookup
#   probes first (nothing here looks its own symbols up by name; crash backtraces read the symbol table);
# - the C++ library linked in (Scripts/static-link/libstdc++.so, a linker script), when the machine has
#   its archive (libstdc++.a, from g++'s package; the Swift toolchain's image has it).
#
# Linux only: Apple platforms link the Swift runtime from the system.
#
# usage: Scripts/build-static.sh PRODUCT [swift build options]   builds into .build/static; prints the binary's path
#        Scripts/build-static.sh --flags                          prints the options it adds to `swift build`
#        Scripts/build-static.sh --check BINARY                   checks a binary it built: no libstdc++.so
#                                                                 needed, no symbol exported, relocations packed
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

usage() { sed -n '/^# usage:/,/^#  .*relocations packed$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# The glibc of this machine, as MAJOR*100+MINOR (236 for 2.36); 0 when it cannot be read.
glibc_version() {
  local v
  v="$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')" || true
  [[ $v =~ ^([0-9]+)\.([0-9]+) ]] || { echo 0; return; }
  echo $(( BASH_REMATCH[1] * 100 + BASH_REMATCH[2] ))
}

has_lld() { [[ -x "$(dirname "$(command -v swiftc)")/ld.lld" ]]; }

# Whether relative relocations are packed: lld, glibc 2.36 or later, not turned off.
packs_relocations() { has_lld && [[ ${WEBSOCKET_STATIC_RELR:-1} != 0 ]] && (( $(glibc_version) >= 236 )); }

# Whether the C++ library's archive is there to link in: clang finds it where g++ installed it.
has_libstdcxx_archive() {
  local found
  found="$(clang -print-file-name=libstdc++.a 2>/dev/null || true)"
  [[ $found == /* && -f $found ]]
}

flags() {
  local out=(-c release --static-swift-stdlib)
  if has_lld; then
    out+=(-Xswiftc -use-ld=lld)
    packs_relocations && out+=(-Xlinker -z -Xlinker pack-relative-relocs)
  fi
  out+=(-Xlinker --no-export-dynamic)
  has_libstdcxx_archive && out+=(-Xlinker "-L$ROOT/Scripts/static-link")
  echo "${out[@]}"
}

check() {
  local binary=$1 failed=0
  [[ -x $binary ]] || { echo "not an executable: $binary" >&2; exit 2; }
  # readelf's output is read whole before it is searched: `readelf | grep -q` under pipefail fails
  # when grep exits at its match before readelf's last write (SIGPIPE), which turned a binary that
  # had its packed relocations into a failed CI run once.
  local dynamic sections
  dynamic="$(readelf -d "$binary")"
  sections="$(readelf -SW "$binary")"
  if has_libstdcxx_archive && grep -q 'NEEDED.*libstdc++' <<<"$dynamic"; then
    echo "FAIL: $binary needs libstdc++.so" >&2; failed=1
  fi
  # Defined dynamic symbols: the few the linker always defines (_start, _IO_stdin_used, ...) at most.
  local exported
  exported="$(readelf --dyn-syms -W "$binary" | awk '$7 != "UND" && $1 ~ /^[0-9]+:$/ && $8 != ""' | wc -l)"
  if (( exported > 16 )); then
    echo "FAIL: $binary exports $exported dynamic symbols" >&2; failed=1
  fi
  if packs_relocations && ! grep -q '\.relr\.dyn' <<<"$sections"; then
    echo "FAIL: $binary has no packed relocations (.relr.dyn)" >&2; failed=1
  fi
  (( failed == 0 )) && echo "ok: $binary (exported symbols: $exported; needs: $(sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' <<<"$dynamic" | tr '\n' ' '))"
  return $failed
}

[[ $(uname -s) == Linux ]] || { echo "Scripts/build-static.sh: Linux only" >&2; exit 2; }
case "${1:-}" in
  ""|-h|--help) usage ;;
  --flags) flags ;;
  --check) [[ $# -eq 2 ]] || usage; check "$2" ;;
  -*) usage ;;
  *)
    product=$1; shift
    # shellcheck disable=SC2207
    build=(swift build $(flags) --scratch-path "$ROOT/.build/static" "$@")
    binary="$(cd "$ROOT" && "${build[@]}" --show-bin-path)/$product"
    # Linked again every time (a link takes seconds): SwiftPM does not relink when only -Xlinker
    # options changed, so a binary left by an older version of this script would stay as it was.
    rm -f "$binary"
    (cd "$ROOT" && "${build[@]}" --product "$product" >&2)
    echo "$binary"
    ;;
esac
