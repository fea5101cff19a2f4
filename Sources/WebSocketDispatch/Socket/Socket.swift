#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few socket system calls the adapter needs, on non-blocking TCP sockets. Every call retries on
/// `EINTR` and reports `errno` rather than trapping.
enum Socket {
    /// The outcome of a non-blocking `recv` or `send`.
    enum IOResult: Equatable {
        /// This many bytes moved (never 0 for `send`).
        case bytes(Int)
        /// `recv` returned 0: the peer closed its side.
        case endOfStream
        /// `EAGAIN`/`EWOULDBLOCK`: wait for the descriptor to become ready.
        case wouldBlock
        case failed(Int32)
    }

    /// The outcome of a non-blocking `connect`.
    enum ConnectResult: Equatable {
        case connected
        /// `EINPROGRESS`: wait for the socket to become writable, then read ``pendingError(_:)``.
        case inProgress
        case failed(Int32)
    }

    /// A new stream socket of `family`, set up by ``configure(_:noDelay:)``.
    static func makeStream(family: Int32, noDelay: Bool) -> Result<Int32, SystemError> {
        #if canImport(Glibc)
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(family, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return .failure(SystemError(errno)) }
        if let error = configure(fd, noDelay: noDelay) {
            close(fd)
            return .failure(error)
        }
        return .success(fd)
    }

    /// Makes `fd` non-blocking and close-on-exec, turns SIGPIPE off for it where the platform allows it
    /// per socket (`SO_NOSIGPIPE`; Linux uses `MSG_NOSIGNAL` on each send instead), and sets
    /// `TCP_NODELAY` when asked (WebSocket frames are written whole, so Nagle's delay only adds latency).
    static func configure(_ fd: Int32, noDelay: Bool) -> SystemError? {
        let flags = fcntl(fd, F_GETFL, 0)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { return SystemError(errno) }
        let fdFlags = fcntl(fd, F_GETFD, 0)
        guard fdFlags >= 0, fcntl(fd, F_SETFD, fdFlags | FD_CLOEXEC) == 0 else { return SystemError(errno) }
        #if canImport(Darwin)
        guard setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1) else { return SystemError(errno) }
        #endif
        if noDelay {
            // Fails harmlessly on a socket that is not TCP; nothing depends on it.
            _ = setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        }
        return nil
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) -> Bool {
        var value = value
        return setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
    }

    /// Starts a non-blocking connect.
    static func connect(_ fd: Int32, to address: SocketAddress) -> ConnectResult {
        while true {
            let result = address.withSockAddr { pointer, length in
                #if canImport(Glibc)
                Glibc.connect(fd, pointer, length)
                #else
                Darwin.connect(fd, pointer, length)
                #endif
            }
            if result == 0 { return .connected }
            switch errno {
            case EINTR: continue
            case EINPROGRESS: return .inProgress
            case let code: return .failed(code)
            }
        }
    }

    /// The error of a finished non-blocking connect (`SO_ERROR`); 0 when it succeeded.
    static func pendingError(_ fd: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return errno }
        return value
    }

    /// A non-blocking listening socket bound to `address`, with `SO_REUSEADDR`.
    static func listen(on address: SocketAddress, backlog: Int32) -> Result<Int32, SystemError> {
        let fd: Int32
        switch makeStream(family: address.family, noDelay: false) {
        case .failure(let error): return .failure(error)
        case .success(let socket): fd = socket
        }
        _ = setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        let bound = address.withSockAddr { pointer, length in bind(fd, pointer, length) }
        #if canImport(Glibc)
        let listening = bound == 0 && Glibc.listen(fd, backlog) == 0
        #else
        let listening = bound == 0 && Darwin.listen(fd, backlog) == 0
        #endif
        guard listening else {
            let error = SystemError(errno)
            close(fd)
            return .failure(error)
        }
        return .success(fd)
    }

    /// The port a socket is bound to (after binding port 0, the one the system chose).
    static func localPort(_ fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutableBytes(of: &storage) { raw in
            getsockname(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
        }
        guard result == 0 else { return nil }
        return withUnsafeBytes(of: storage) { raw -> UInt16? in
            switch Int32(storage.ss_family) {
            case AF_INET: return UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
            case AF_INET6: return UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
            default: return nil
            }
        }
    }

    /// The outcome of a non-blocking `accept`.
    enum AcceptResult: Equatable {
        case accepted(Int32)
        case wouldBlock
        case failed(Int32)
    }

    static func accept(_ fd: Int32) -> AcceptResult {
        while true {
            #if canImport(Glibc)
            let client = Glibc.accept(fd, nil, nil)
            #else
            let client = Darwin.accept(fd, nil, nil)
            #endif
            if client >= 0 { return .accepted(client) }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(code)
            }
        }
    }

    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return buffer.isEmpty ? .bytes(0) : .endOfStream }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(code)
            }
        }
    }

    static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> IOResult {
        guard !buffer.isEmpty else { return .bytes(0) }
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        while true {
            #if canImport(Glibc)
            let count = Glibc.send(fd, buffer.baseAddress, buffer.count, flags)
            #else
            let count = Darwin.send(fd, buffer.baseAddress, buffer.count, flags)
            #endif
            if count >= 0 { return .bytes(count) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(code)
            }
        }
    }

    /// Sends FIN: the peer reads end of stream, and we can still read what it sends.
    static func shutdownWrite(_ fd: Int32) {
        #if canImport(Glibc)
        _ = shutdown(fd, Int32(SHUT_WR))
        #else
        _ = shutdown(fd, SHUT_WR)
        #endif
    }

    static func close(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }
}
