// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Addresses built from what a PROXY protocol header carries, and read back as what trusted proxy ranges
/// match.
extension SocketAddress {
    /// An IPv4 (`sockaddr_in`) or IPv6 (`sockaddr_in6`, no flow label or scope) address and port.
    init(_ address: IPAddressLiteral, port: UInt16) {
        if address.isIPv6 {
            var storage = sockaddr_in6()
            storage.sin6_family = sa_family_t(AF_INET6)
            storage.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage.sin6_addr) { $0.copyBytes(from: address.bytes) }
            #if canImport(Darwin)
            storage.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
            #endif
            self.init(sockaddrBytes: withUnsafeBytes(of: &storage) { Array($0) })
        } else {
            var storage = sockaddr_in()
            storage.sin_family = sa_family_t(AF_INET)
            storage.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage.sin_addr) { $0.copyBytes(from: address.bytes) }
            #if canImport(Darwin)
            storage.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            self.init(sockaddrBytes: withUnsafeBytes(of: &storage) { Array($0) })
        }
    }

    /// A Unix domain socket address from a path's raw bytes, as a PROXY protocol v2 header carries it
    /// (108 bytes, padded with NULs; a Linux abstract name starts with a NUL): the padding after the
    /// last byte that is not NUL is dropped. A path longer than `sun_path` (104 bytes on Darwin, 108 on
    /// Linux, so never there) is cut to fit. No byte makes it fail: it is a name, never opened.
    static func unix(rawPath: ArraySlice<UInt8>) -> SocketAddress {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let used = rawPath[..<((rawPath.lastIndex { $0 != 0 }).map { $0 + 1 } ?? rawPath.startIndex)]
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let path = used.prefix(capacity)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let length = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + path.count
        #if canImport(Darwin)
        address.sun_len = UInt8(truncatingIfNeeded: length)
        #endif
        return SocketAddress(sockaddrBytes: withUnsafeBytes(of: &address) { Array($0.prefix(length)) })
    }

    /// The IP address of an IPv4 or IPv6 address; `nil` for other families.
    var ipAddress: IPAddressLiteral? {
        switch family {
        case .ipv4:
            guard bytes.count >= MemoryLayout<sockaddr_in>.size else { return nil }
            return withSockaddr { address, _ in
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    IPAddressLiteral(bytes: withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) })
                }
            }
        case .ipv6:
            guard bytes.count >= MemoryLayout<sockaddr_in6>.size else { return nil }
            return withSockaddr { address, _ in
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    IPAddressLiteral(bytes: withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) })
                }
            }
        case .unix, .other:
            return nil
        }
    }
}
