// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// libFuzzer target `connection-client`: a whole client Connection after the handshake, driven by a script.
// Build and run with `Fuzz/run.sh connection-client SECONDS`; see Fuzz/README.md.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    ConnectionTarget.run(data, size, cutIsServer: false)
    return 0
}

/// With WEBSOCKET_FUZZ_WRITE_SEEDS=DIR in the environment, writes this target's seed corpus to DIR and
/// exits (`Fuzz/run.sh --write-seeds`).
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>,
                           _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    Seeds.writeIfRequested(target: "connection-client")
    return 0
}
