// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A socket address: IPv4, IPv6 or a Unix domain socket path, as the kernel reports it (a copy of
/// the `sockaddr` bytes).
///
/// ```swift
/// let server = try BlockingWebSocketServer(host: "::1", port: 0)
/// print(server.localAddress)          // [::1]:40123
/// print(server.localAddress.port!)    // 40123
/// ```
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address family.
    public enum Family: Sendable, Hashable {
        /// `AF_INET`.
        case ipv4
        /// `AF_INET6`.
        case ipv6
        /// `AF_UNIX`: a Unix domain socket.
        case unix
        /// Another family, by its `AF_` number.
        case other(Int32)
    }

    /// The `sockaddr` bytes, exactly as long as the kernel reported.
    private(set) var bytes: [UInt8]

    /// Copies `length` bytes of a `sockaddr`.
    package init(_ address: UnsafeRawPointer, length: socklen_t) {
        bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(length)))
    }

    /// An address from its `sockaddr` bytes, as built by the other initializers.
    init(sockaddrBytes: [UInt8]) {
        bytes = sockaddrBytes
    }

    /// The address of a Unix domain socket at `path`.
    ///
    /// - Throws: ``Errno/nameTooLong`` when the path does not fit `sun_path` (107 bytes on Linux,
    ///   103 on Darwin) and ``Errno/invalidArgument`` for an empty path or one holding a NUL byte.
    package static func unix(path: String) throws(Errno) -> SocketAddress {
        var address = sockaddr_un()
        let pathBytes = Array(path.utf8)
        guard !pathBytes.isEmpty, !pathBytes.contains(0) else { throw .invalidArgument }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { throw .nameTooLong }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let length = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count + 1
        #if canImport(Darwin)
        address.sun_len = UInt8(length)
        #endif
        return withUnsafeBytes(of: &address) { SocketAddress($0.baseAddress!, length: socklen_t(length)) }
    }

    /// Lends the address to a C call.
    package func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result) rethrows -> Result {
        // Copied into a sockaddr_storage so that the pointer is suitably aligned.
        var storage = sockaddr_storage()
        let count = min(bytes.count, MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutableBytes(of: &storage) { raw in
            raw.copyBytes(from: bytes.prefix(count))
        }
        return try withUnsafePointer(to: &storage) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, socklen_t(count)) }
        }
    }

    /// The `AF_` number of the address.
    package var familyNumber: Int32 {
        // An unnamed Unix socket's address is the family alone (2 bytes).
        let end = MemoryLayout<sockaddr>.offset(of: \.sa_family)! + MemoryLayout<sa_family_t>.size
        guard bytes.count >= end else { return Int32(AF_UNSPEC) }
        return withSockaddr { address, _ in Int32(address.pointee.sa_family) }
    }

    /// The address family.
    public var family: Family {
        switch familyNumber {
        case Int32(AF_INET): return .ipv4
        case Int32(AF_INET6): return .ipv6
        case Int32(AF_UNIX): return .unix
        case let other: return .other(other)
        }
    }

    /// The port of an IPv4 or IPv6 address; `nil` for other families.
    public var port: UInt16? {
        switch family {
        case .ipv4:
            guard bytes.count >= MemoryLayout<sockaddr_in>.size else { return nil }
            return withSockaddr { address, _ in
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        case .ipv6:
            guard bytes.count >= MemoryLayout<sockaddr_in6>.size else { return nil }
            return withSockaddr { address, _ in
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        case .unix, .other:
            return nil
        }
    }

    /// The numeric host of an IPv4 or IPv6 address (`127.0.0.1`, `::1`); `nil` for other families.
    public var host: String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch family {
        case .ipv4:
            guard bytes.count >= MemoryLayout<sockaddr_in>.size else { return nil }
            return withSockaddr { address, _ in
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    var ip = pointer.pointee.sin_addr
                    guard inet_ntop(AF_INET, &ip, &text, socklen_t(text.count)) != nil else { return nil }
                    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                }
            }
        case .ipv6:
            guard bytes.count >= MemoryLayout<sockaddr_in6>.size else { return nil }
            return withSockaddr { address, _ in
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    var ip = pointer.pointee.sin6_addr
                    guard inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count)) != nil else { return nil }
                    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                }
            }
        case .unix, .other:
            return nil
        }
    }

    /// The path of a Unix domain socket address; `nil` for other families and unnamed sockets.
    public var unixPath: String? {
        guard family == .unix else { return nil }
        let offset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        guard bytes.count > offset else { return nil }
        let path = bytes[offset...].prefix { $0 != 0 }
        return path.isEmpty ? nil : String(decoding: path, as: UTF8.self)
    }

    /// `127.0.0.1:9001`, `[::1]:9001`, `unix:/path/to/socket`, `unix:(unnamed)` for a client's
    /// unbound Unix socket.
    public var description: String {
        switch family {
        case .ipv4: return "\(host ?? "?"):\(port ?? 0)"
        case .ipv6: return "[\(host ?? "?")]:\(port ?? 0)"
        case .unix: return unixPath.map { "unix:\($0)" } ?? "unix:(unnamed)"
        case .other(let number): return "address family \(number)"
        }
    }
}
