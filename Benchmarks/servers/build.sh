#!/usr/bin/env bash
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

# Builds the libwebsockets echo server (lws-echo) and the load generator (wsload) into
# .build/servers/ (or $SERVERS_BUILD_DIR), installing libwebsockets-dev, pkg-config and gcc with
# apt-get first when they are missing (CI runs this as root).
#
#   Benchmarks/servers/build.sh            prints the build directory on its last line
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${SERVERS_BUILD_DIR:-$root/.build/servers}"

missing=()
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if ! pkg-config --exists libwebsockets 2>/dev/null; then missing+=(libwebsockets-dev); fi
if ((${#missing[@]} > 0)); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "build.sh: missing ${missing[*]}; run as root or install them (apt-get install -y ${missing[*]})" >&2
        exit 1
    fi
    echo "build.sh: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
fi

mkdir -p "$out"
cflags=(-O2 -g -std=gnu11 -Wall -Wextra -Werror=implicit-function-declaration)
read -r -a lws_cflags <<<"$(pkg-config --cflags libwebsockets)"
read -r -a lws_libs <<<"$(pkg-config --libs libwebsockets)"

gcc "${cflags[@]}" "${lws_cflags[@]}" -o "$out/lws-echo" "$here/lws-echo.c" "${lws_libs[@]}"
gcc "${cflags[@]}" -o "$out/wsload" "$here/wsload.c"
echo "$out"
