#!/usr/bin/env python3
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

"""Runs a WASI program (the Embedded transcript built for wasm32) under wasmtime, its standard output
to a file, and exits with its status: `run.py PROGRAM.wasm OUTPUT`."""

import sys

import wasmtime


def main() -> int:
    program, output = sys.argv[1], sys.argv[2]
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    wasi = wasmtime.WasiConfig()
    wasi.stdout_file = output
    wasi.inherit_stderr()
    store.set_wasi(wasi)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    module = wasmtime.Module.from_file(engine, program)
    instance = linker.instantiate(store, module)
    try:
        instance.exports(store)["_start"](store)
    except wasmtime.ExitTrap as exit:
        return exit.code
    return 0


if __name__ == "__main__":
    sys.exit(main())
