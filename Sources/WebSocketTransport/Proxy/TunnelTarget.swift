// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The host a tunnel asks its proxy to connect to, checked once for both tunnels: a name, or an IPv4
/// or IPv6 address.
enum TunnelTarget: Sendable, Hashable {
    /// A host name (letters, digits, `-`, `.`, `_`), as given.
    case name(String)
    /// A numeric address.
    case address(IPAddressLiteral, text: String)

    /// Reads `host`: an IPv6 address with or without brackets (a zone after `%` is dropped: it names
    /// an interface of this machine, which means nothing to the proxy), an IPv4 address, or a name.
    ///
    /// - Throws: ``ProxyError/Code/invalidTarget``: empty, or a byte that is none of those (a space, a
    ///   CR or LF that would end the request line, `/`, `@`).
    init(host: String) throws(ProxyError) {
        var text = host
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.contains(":") {
            if let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) }
            guard let address = IPAddressLiteral(text) else {
                throw ProxyError(.invalidTarget, reason: "\(String(reflecting: host)) is not an IPv6 address")
            }
            self = .address(address, text: text)
            return
        }
        guard !text.isEmpty else { throw ProxyError(.invalidTarget, reason: "empty host") }
        guard text.utf8.allSatisfy(ProxyURL.isHostNameByte) else {
            throw ProxyError(.invalidTarget, reason: "a host may hold letters, digits, '-', '.' and '_'")
        }
        if let address = IPAddressLiteral(text) {
            self = .address(address, text: text)
        } else {
            self = .name(text)
        }
    }

    /// `host:port` for an HTTP request's authority (RFC 9112 §3.2.3), an IPv6 address in brackets.
    func authority(port: UInt16) -> String {
        switch self {
        case .name(let name): return "\(name):\(port)"
        case .address(let address, let text): return address.isIPv6 ? "[\(text)]:\(port)" : "\(text):\(port)"
        }
    }
}
