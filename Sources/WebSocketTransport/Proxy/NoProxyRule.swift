// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// One entry of `no_proxy`: the hosts (and optionally the port) to reach without a proxy.
///
/// The forms, as curl reads them (with CIDR ranges, which curl has since 7.86):
///
/// | entry | matches |
/// | --- | --- |
/// | `*` | every host |
/// | `example.com`, `.example.com`, `*.example.com` | `example.com` and every name under it (`a.example.com`), in any case |
/// | `192.0.2.7`, `::1`, `[::1]` | that address written in any form (`0:0::1`) |
/// | `10.0.0.0/8`, `fd00::/8`, `[fd00::]/8` | every address in the range |
/// | any of these, then `:port` (`[::1]:8080` for IPv6) | only that port |
///
/// A host name is never resolved to be matched against addresses or ranges (as in curl): an entry
/// `10.0.0.0/8` does not match `intranet.example` even if it resolves into the range.
struct NoProxyRule: Sendable, Hashable {
    enum Hosts: Sendable, Hashable {
        case all
        /// A name and every name under it, lower-case, without leading or trailing dots.
        case domain(String)
        case range(IPAddressRange)
    }

    let hosts: Hosts
    let port: UInt16?

    /// Reads one entry; `nil` for one that is none of the forms (ignored, as curl ignores them).
    init?(_ entry: Substring) {
        var text = entry
        var port: UInt16?
        var bracketed = false
        if text.first == "[" {
            // [IPv6], [IPv6]:port, [IPv6]/bits, [IPv6]/bits:port
            guard let close = text.firstIndex(of: "]") else { return nil }
            var rest = text[text.index(after: close)...]
            text = text[text.index(after: text.startIndex)..<close]
            bracketed = true
            var bits: Substring?
            if rest.first == "/" {
                let end = rest.firstIndex(of: ":") ?? rest.endIndex
                bits = rest[rest.index(after: rest.startIndex)..<end]
                rest = rest[end...]
            }
            if rest.first == ":" {
                guard let value = UInt16(rest.dropFirst()) else { return nil }
                port = value
            } else if !rest.isEmpty {
                return nil
            }
            if let bits { text = text + "/" + bits }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.lastIndex(of: ":") {
            // name:port or IPv4:port (two colons or more: an IPv6 address without a port).
            guard let value = UInt16(text[text.index(after: colon)...]) else { return nil }
            port = value
            text = text[..<colon]
        }
        self.port = port
        if text == "*", !bracketed {
            hosts = .all
            return
        }
        if let slash = text.firstIndex(of: "/") {
            guard let address = IPAddressLiteral(String(text[..<slash])),
                  let bits = Int(text[text.index(after: slash)...]), bits >= 0, bits <= 8 * address.bytes.count
            else { return nil }
            hosts = .range(IPAddressRange(network: address, prefixLength: bits))
            return
        }
        if let address = IPAddressLiteral(String(text)) {
            hosts = .range(IPAddressRange(address))
            return
        }
        guard !bracketed else { return nil }
        var name = text.lowercased()[...]
        if name.hasPrefix("*.") { name = name.dropFirst(2) }
        while name.first == "." { name = name.dropFirst() }
        while name.last == "." { name = name.dropLast() }
        guard !name.isEmpty, name.utf8.allSatisfy(ProxyURL.isHostNameByte) else { return nil }
        hosts = .domain(String(name))
    }

    /// Whether the rule covers `host` (lower-case, without brackets, zone or trailing dot; `address`
    /// its numeric form, when it is one) on `port`.
    func matches(host: String, address: IPAddressLiteral?, port: UInt16) -> Bool {
        if let rulePort = self.port, rulePort != port { return false }
        switch hosts {
        case .all:
            return true
        case .domain(let domain):
            guard address == nil else { return false }
            return host == domain || host.hasSuffix("." + domain)
        case .range(let range):
            guard let address else { return false }
            return range.contains(address)
        }
    }
}
