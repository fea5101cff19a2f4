// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import WebSocketTransport
internal import COpenSSL

/// What a client verifies the server as: a DNS name (also sent as SNI) or an IP address (never sent:
/// RFC 6066 §3, "Literal IPv4 and IPv6 addresses are not permitted in HostName").
enum ServerName: Equatable {
    case dns(String)
    case ipAddress(String)

    /// - Parameter name: a host name in ASCII (an internationalized name in its A-label form), an
    ///   IPv4 address, or an IPv6 address without brackets or zone.
    /// - Throws: ``TLSError/Kind/configuration`` for a name that is neither.
    init(validating name: String) throws(WebSocketError) {
        func refuse(_ why: String) -> WebSocketError {
            .tls(TLSError(.configuration, reason: "server name \(String(reflecting: name)) \(why)"))
        }
        guard !name.isEmpty else { throw refuse("is empty") }
        // Printable ASCII only: a NUL would cut the name short in C, and non-ASCII names must be
        // in the A-label form that certificates and SNI carry (RFC 5890).
        guard name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw refuse("is not printable ASCII (use the A-label form of an internationalized name)")
        }
        if let address = a2i_IPADDRESS(name) {
            ASN1_OCTET_STRING_free(address)
            self = .ipAddress(name)
            return
        }
        OpenSSLErrorQueue.clear()
        guard !name.contains(":") else { throw refuse("is not a valid IPv6 address") }
        // A fully qualified name's final dot is not part of the name certificates and SNI hold
        // (RFC 6066 §3: "without a trailing dot").
        let host = name.hasSuffix(".") ? String(name.dropLast()) : name
        guard !host.isEmpty, host.utf8.count <= 253 else { throw refuse("is not a valid host name") }
        self = .dns(host)
    }
}
#endif
