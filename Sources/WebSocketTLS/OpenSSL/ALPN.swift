// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
internal import COpenSSL

/// Application-Layer Protocol Negotiation (RFC 7301) for WebSocket over HTTP/1.1 (RFC 6455 §4.1):
/// the client offers `http/1.1`; the server selects it when offered and otherwise goes on without
/// ALPN, since most clients of a WebSocket server send none.
enum ALPN {
    static let http11: [UInt8] = Array("http/1.1".utf8)
    /// The client's offer, in wire form: one length-prefixed name.
    static let clientOffer: [UInt8] = [UInt8(http11.count)] + http11

    /// The first `http/1.1` in the client's list (length-prefixed names), as an offset and length.
    static func select(in offered: UnsafeBufferPointer<UInt8>) -> (offset: Int, count: Int)? {
        var index = 0
        while index < offered.count {
            let length = Int(offered[index])
            let start = index + 1
            // A malformed list (an empty name, or one that runs past the end) selects nothing.
            guard length > 0, length <= offered.count - start else { return nil }
            if length == http11.count, http11.indices.allSatisfy({ offered[start + $0] == http11[$0] }) {
                return (start, length)
            }
            index = start + length
        }
        return nil
    }
}

/// OpenSSL's ALPN selection callback for servers: points `out` into the client's own list (OpenSSL
/// copies it before the list is freed).
let selectHTTP11: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
                                  UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?) -> Int32 = {
    _, out, outLength, offered, offeredLength, _ in
    guard let out, let outLength, let offered,
          let choice = ALPN.select(in: UnsafeBufferPointer(start: offered, count: Int(offeredLength)))
    else { return SSL_TLSEXT_ERR_NOACK }
    out.pointee = offered + choice.offset
    outLength.pointee = UInt8(truncatingIfNeeded: choice.count)
    return SSL_TLSEXT_ERR_OK
}
#endif
