// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// What a proxy tunnel layer may hold while it sets the tunnel up, so that its memory stays bounded
/// whatever the proxy sends. A proxy that exceeds a limit fails the layer with
/// ``ProxyError/Code/responseTooLarge``.
public struct ProxyLimits: Sendable, Hashable {
    /// The most bytes of an HTTP proxy's response head (status line, header fields, line ends, any
    /// interim 1xx heads before it), checked before each byte is stored. Default 16 KiB, h11's limit
    /// for an incomplete head: a proxy's answer to CONNECT is a few hundred bytes; a proxy that
    /// streams an endless head is cut off. The header fields are kept (for a refusal's error) as
    /// strings, at most 3 × this (each byte of invalid UTF-8 becomes U+FFFD).
    public var maxResponseHeadBytes = 16 << 10
    /// The most header fields in an HTTP proxy's response head. Default 100.
    public var maxResponseHeaderCount = 100
    /// The most bytes the layer above may send before the tunnel is up (they are sent once it is).
    /// Default 256 KiB, as for a TLS session (`TLSLimits.maxBufferedPlaintext`); more fails the layer with
    /// ``ProxyError/Code/limitExceeded``. The adapters' pipeline sends nothing to a layer still
    /// establishing, so this only bounds a caller that drives the layer itself.
    public var maxBufferedSend = 256 << 10

    /// The defaults above.
    public init() {}
}
