// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if !canImport(COpenSSL)
import Testing
import TLSTestSupport
import WebSocketTLS

/// Where this build has no OpenSSL (Apple platforms, for now), the types exist and say so.
@Suite struct UnavailableTests {
    @Test func contextsAreUnavailable() {
        #expect {
            try TLSContext(.client())
        } throws: { error in
            guard case WebSocketError.tls(let tls) = error else { return false }
            return tls.kind == .unavailable && !tls.reason.isEmpty
        }
    }
}
#endif
