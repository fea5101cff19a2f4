// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A range of IP addresses: a network address and how many of its leading bits every address in the
/// range shares (`10.0.0.0/8`; a single address is a range of all its bits). What `no_proxy` entries and
/// ``TrustedProxies`` match addresses against.
struct IPAddressRange: Sendable, Hashable {
    let network: IPAddressLiteral
    /// 0 to 32 for IPv4, 0 to 128 for IPv6.
    let prefixLength: Int

    /// The range of one address.
    init(_ address: IPAddressLiteral) {
        self.init(network: address, prefixLength: 8 * address.bytes.count)
    }

    init(network: IPAddressLiteral, prefixLength: Int) {
        self.network = network
        self.prefixLength = prefixLength
    }

    /// Whether `address` is in the range. An IPv4-mapped IPv6 address is the IPv4 address it maps (RFC
    /// 4291 §2.5.5.2), on either side: `10.0.0.0/8` holds `::ffff:10.1.2.3`, and `::ffff:10.0.0.0/104`
    /// holds `10.1.2.3`. An IPv6 range holds no other IPv4 address, nor an IPv4 range any IPv6 one.
    func contains(_ address: IPAddressLiteral) -> Bool {
        let unmapped = network.unmapped
        let bits = unmapped.bytes.count < network.bytes.count ? max(0, prefixLength - 96) : prefixLength
        return address.unmapped.isIn(unmapped, prefixLength: bits)
    }
}
