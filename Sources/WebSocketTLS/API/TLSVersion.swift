// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A TLS protocol version. Only 1.2 (RFC 5246) and 1.3 (RFC 8446) exist here: the versions before
/// them are deprecated (RFC 8996) and never negotiated.
public enum TLSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// TLS 1.2, the lowest version accepted.
    case v1_2
    /// TLS 1.3.
    case v1_3

    /// `TLS 1.2`, `TLS 1.3`.
    public var description: String {
        switch self {
        case .v1_2: return "TLS 1.2"
        case .v1_3: return "TLS 1.3"
        }
    }
}
