#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Name resolution with `getaddrinfo`: every IPv4 and IPv6 stream address of a host, in the order
/// the resolver prefers (RFC 6724), for connecting to each in turn or for binding.
enum AddressResolution {
    /// Why a host could not be resolved: the `getaddrinfo` code and its message.
    struct Failure: Error, Sendable, Hashable {
        var code: Int32
        var message: String
    }

    /// The stream addresses of `host` and `port`.
    ///
    /// - Parameters:
    ///   - host: a name or a numeric IPv4 or IPv6 address (without brackets; an IPv6 zone as `%zone`).
    ///   - passive: addresses to bind to (`AI_PASSIVE`) rather than to connect to.
    static func resolve(host: String, port: UInt16, passive: Bool = false) -> Result<[SocketAddress], Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = SocketConstants.stream
        hints.ai_protocol = SocketConstants.tcpProtocol
        hints.ai_flags = passive ? AI_PASSIVE : 0
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
            if let address = entry.pointee.ai_addr, entry.pointee.ai_addrlen > 0 {
                let resolved = SocketAddress(address, length: entry.pointee.ai_addrlen)
                if !addresses.contains(resolved) { addresses.append(resolved) }
            }
            next = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failure(Failure(code: EAI_NONAME, message: "no address")) }
        return .success(addresses)
    }
}
