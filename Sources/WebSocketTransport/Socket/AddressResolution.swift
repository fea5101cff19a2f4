// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Name resolution with `getaddrinfo`: every IPv4 and IPv6 stream address of a host, in the order
/// the resolver prefers (RFC 6724), for connecting to each in turn or for binding.
package enum AddressResolution {
    /// Why a host could not be resolved: the `getaddrinfo` code and its message.
    package struct Failure: Error, Sendable, Hashable {
        package var code: Int32
        package var message: String
    }

    /// The stream addresses of `host` and `port`. `getaddrinfo` blocks while it asks DNS; numeric
    /// hosts (`127.0.0.1`, `::1`, `fe80::1%eth0`) resolve at once.
    ///
    /// - Parameters:
    ///   - host: a name or a numeric IPv4 or IPv6 address, without brackets, an IPv6 zone written
    ///     `%zone` (``resolve(urlHost:port:)`` takes the URL's form).
    ///   - passive: addresses to bind to (`AI_PASSIVE`) rather than to connect to.
    package static func resolve(host: String, port: UInt16, passive: Bool = false) -> Result<[SocketAddress], Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = SocketConstants.stream
        hints.ai_protocol = SocketConstants.tcpProtocol
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0 else {
            let message: String
            if code == EAI_SYSTEM {
                message = Errno.current.description
            } else if let text = gai_strerror(code) {
                message = String(cString: text)
            } else {
                message = "getaddrinfo error \(code)"
            }
            return .failure(Failure(code: code, message: message))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var next = list
        while let entry = next {
            let family = entry.pointee.ai_family
            if family == AF_INET || family == AF_INET6, let address = entry.pointee.ai_addr, entry.pointee.ai_addrlen > 0 {
                let resolved = SocketAddress(address, length: entry.pointee.ai_addrlen)
                if !addresses.contains(resolved) { addresses.append(resolved) }
            }
            next = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failure(Failure(code: EAI_NONAME, message: "no IPv4 or IPv6 address")) }
        return .success(addresses)
    }

    /// The addresses of a ``WebSocketURL``'s host: an IPv6 zone is kept as the URL writes it
    /// (`fe80::1%25eth0`, RFC 6874) and handed to the resolver as `%eth0`.
    package static func resolve(urlHost host: String, port: UInt16) -> Result<[SocketAddress], Failure> {
        resolve(host: resolverHost(forURLHost: host), port: port)
    }

    /// `host` with each `%25` (a percent-encoded `%`, which in a host only introduces an IPv6 zone)
    /// decoded.
    package static func resolverHost(forURLHost host: String) -> String {
        guard host.contains("%25") else { return host }
        var result = ""
        var rest = host[...]
        while let range = rest.firstRange(of: "%25") {
            result += rest[..<range.lowerBound] + "%"
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
