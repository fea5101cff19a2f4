// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// libFuzzer target `resp`: the RESP2/RESP3 decoder and encoder of WebSocketRedis, with the Pub/Sub
// classifier and the subscriber handshake. Build and run with `Fuzz/run.sh resp SECONDS`; see
// Fuzz/README.md.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    RESPTarget.run(data, size)
    return 0
}

/// With WEBSOCKET_FUZZ_WRITE_SEEDS=DIR in the environment, writes this target's seed corpus to DIR and
/// exits (`Fuzz/run.sh --write-seeds`).
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>,
                           _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    Seeds.writeIfRequested(target: "resp")
    return 0
}
