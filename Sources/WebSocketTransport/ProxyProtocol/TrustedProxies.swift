// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// The proxies and load balancers whose word on a client's address a server takes: what a PROXY protocol
/// header or a `Forwarded` element says counts only when the node that sent it is one of these.
///
/// ```swift
/// let trusted = try TrustedProxies(["10.0.0.0/8", "192.168.1.7", "::1", "fd00::/8", "unix"])
/// trusted.contains(peer)      // the socket's peer: may it speak for the client?
/// ```
///
/// The client's address from `Forwarded`, behind trusted proxies:
///
/// ```swift
/// func clientAddress(_ request: Connection.HandshakeRequest, peer: SocketAddress) -> String? {
///     guard trusted.contains(peer) else { return peer.host }      // not behind a proxy we trust
///     for element in request.forwarded.reversed() {
///         guard let node = element.for else { return nil }        // malformed, or no `for`: unknown
///         guard trusted.contains(node) else { return node.description }
///     }
///     return nil                                                  // only trusted proxies: unknown
/// }
/// ```
///
/// The entries:
///
/// | entry | matches |
/// | --- | --- |
/// | `192.0.2.7`, `::1` | that address (IPv6 in any text form: `0:0::1`) |
/// | `10.0.0.0/8`, `fd00::/8` | every address in the range (bits after the prefix may be set: `10.1.2.3/8` is `10.0.0.0/8`) |
/// | `unix` | every peer of a Unix domain socket (a proxy on the same host) |
///
/// An IPv4-mapped IPv6 address (`::ffff:10.1.2.3`, what a dual-stack socket reports for an IPv4 peer)
/// is matched as the IPv4 address it maps, against IPv4 entries and against entries written in the
/// mapped form (`::ffff:10.0.0.0/104`). Addresses are written as RFC 3986 has them: four decimal
/// octets without leading zeros, IPv6 without brackets or zone. No entry is ever a host name: a name
/// would be as trustworthy as the resolver answering for it.
///
/// The trust rule, for both sources of a client's address: take what the socket's peer says only if
/// the peer is trusted. With a PROXY protocol header, that is the whole rule: a header from a peer that
/// is not trusted fails the connection (an attacker who reaches the port directly would pick its
/// address). With `Forwarded`, walk back from the last element while the node that sent the request
/// is trusted (the peer, then each element's `for`): the first node that is not is the client.
public struct TrustedProxies: Sendable, Hashable, CustomStringConvertible {
    /// An entry that is none of the forms above.
    public struct InvalidEntry: Error, Sendable, Hashable, CustomStringConvertible {
        /// The entry, as given.
        public var entry: String
        /// What is wrong with it.
        public var reason: String

        /// An error for this entry.
        public init(entry: String, reason: String) {
            self.entry = entry
            self.reason = reason
        }

        /// One line, e.g. `invalid trusted proxy "10.0.0.0/33": the prefix length 33 is more than 32`.
        public var description: String {
            "invalid trusted proxy \"\(entry)\": \(reason)"
        }
    }

    private var ranges: [IPAddressRange] = []
    private var entries: [String] = []
    private var includesUnixSockets = false

    /// No proxy: nothing any peer says about a client is taken.
    public init() {}

    /// The proxies these entries name (the forms above; surrounding spaces are ignored).
    ///
    /// - Throws: ``InvalidEntry`` for the first entry that is none of them: not an address, a prefix
    ///   length that is not a decimal number (`/+8`, `/08`) or is longer than the address (more than 32
    ///   for IPv4, 128 for IPv6), an empty entry.
    public init(_ entries: some Sequence<String>) throws(InvalidEntry) {
        for entry in entries {
            let text = entry.trimmingASCIISpaces
            if text == "unix" {
                includesUnixSockets = true
            } else {
                ranges.append(try Self.range(text, entry: entry))
            }
            self.entries.append(String(text))
        }
    }

    /// Whether `address` is a trusted proxy: an address in one of the ranges, or any Unix domain socket
    /// peer with `unix`.
    public func contains(_ address: SocketAddress) -> Bool {
        if address.family == .unix { return includesUnixSockets }
        guard let ip = address.ipAddress else { return false }
        return ranges.contains { $0.contains(ip) }
    }

    /// Whether `address`, the text of an IPv4 or IPv6 address (an `X-Forwarded-For` entry), is a trusted
    /// proxy; `false` for anything else, a port or brackets included.
    public func contains(address text: some StringProtocol) -> Bool {
        guard let ip = IPAddressLiteral(strict: text) else { return false }
        return ranges.contains { $0.contains(ip) }
    }

    /// Whether the node of a `Forwarded` element (its `for` or `by`) is a trusted proxy: only an IPv4 or
    /// IPv6 address can be, whatever its port; `unknown` and obfuscated names never are.
    public func contains(_ node: Connection.ForwardedNode) -> Bool {
        switch node.name {
        case .ipv4(let text), .ipv6(let text): return contains(address: text)
        case .unknown, .obfuscated: return false
        }
    }

    /// The entries, as given, without surrounding spaces.
    public var description: String {
        entries.joined(separator: ", ")
    }

    private static func range(_ text: Substring, entry: String) throws(InvalidEntry) -> IPAddressRange {
        guard !text.isEmpty else { throw InvalidEntry(entry: entry, reason: "empty") }
        let slash = text.firstIndex(of: "/")
        let addressText = text[..<(slash ?? text.endIndex)]
        guard let address = IPAddressLiteral(strict: addressText) else {
            throw InvalidEntry(entry: entry, reason: "\"\(addressText)\" is not an IPv4 or IPv6 address (nor \"unix\")")
        }
        let maximum = 8 * address.bytes.count
        guard let slash else { return IPAddressRange(address) }
        let bits = text[text.index(after: slash)...]
        guard !bits.isEmpty, bits.count <= 3, bits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              bits == "0" || !bits.hasPrefix("0"), let prefixLength = Int(bits) else {
            throw InvalidEntry(entry: entry, reason: "the prefix length \"\(bits)\" is not a decimal number")
        }
        guard prefixLength <= maximum else {
            throw InvalidEntry(entry: entry, reason: "the prefix length \(prefixLength) is more than \(maximum)")
        }
        return IPAddressRange(network: address, prefixLength: prefixLength)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingASCIISpaces: Substring {
        var text = self[...]
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
