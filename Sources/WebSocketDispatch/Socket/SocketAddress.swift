#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 socket address, as `getaddrinfo` returned it.
struct SocketAddress: Sendable {
    var storage: sockaddr_storage
    var length: socklen_t
    /// `AF_INET` or `AF_INET6`.
    var family: Int32

    /// Calls `body` with the address as the `sockaddr` pointer the socket calls take.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }

    /// Resolves `host` and `port` to stream socket addresses, in the order the resolver prefers.
    ///
    /// This calls `getaddrinfo`, which blocks while it asks DNS; numeric hosts (`127.0.0.1`, `::1`)
    /// resolve at once.
    ///
    /// - Parameter passive: for a listening socket (`AI_PASSIVE`).
    /// - Throws: the resolver's error code and message.
    static func resolve(host: String, port: UInt16, passive: Bool = false) throws(ResolutionError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_protocol = Int32(IPPROTO_TCP)
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            throw ResolutionError(code: status, message: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let info = cursor {
            defer { cursor = info.pointee.ai_next }
            let family = info.pointee.ai_family
            guard family == AF_INET || family == AF_INET6, let source = info.pointee.ai_addr else { continue }
            let length = min(Int(info.pointee.ai_addrlen), MemoryLayout<sockaddr_storage>.size)
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(start: source, count: length))
            }
            addresses.append(SocketAddress(storage: storage, length: socklen_t(length), family: family))
        }
        guard !addresses.isEmpty else { throw ResolutionError(code: EAI_NONAME, message: "no IPv4 or IPv6 address") }
        return addresses
    }
}

/// `getaddrinfo` failed.
struct ResolutionError: Error, Sendable {
    var code: Int32
    var message: String
}
