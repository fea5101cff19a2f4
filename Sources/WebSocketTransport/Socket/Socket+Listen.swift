// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Socket {
    /// A listening socket bound to `address` (with `SO_REUSEADDR` for IP addresses, so that a
    /// restarted server can bind while old connections linger in TIME_WAIT). With `reusePort`, an IP
    /// socket also sets `SO_REUSEPORT`, so that several sockets of the process listen on one port
    /// and the kernel spreads the connections over them (one per event loop).
    package static func listening(on address: SocketAddress, backlog: Int32, reusePort: Bool = false,
                                  system: SystemCalls) throws(Errno) -> Socket {
        let socket = try Socket.stream(family: address.familyNumber, system: system)
        if address.family != .unix {
            try socket.setOption(level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
            if reusePort { try socket.setOption(level: SOL_SOCKET, name: SO_REUSEPORT, value: 1) }
        }
        guard address.withSockaddr({ system.bind(socket.descriptor, $0, $1) }) == 0 else { throw .current }
        guard system.listen(socket.descriptor, backlog) == 0 else { throw .current }
        return socket
    }

    /// Accepts a pending connection, without waiting: `nil` when there is none (`EAGAIN`). `EINTR` is
    /// retried, and so is `ECONNABORTED` (that connection was reset in the backlog; those behind it
    /// are still there, and an edge-triggered loop that took it for "none" would never hear of them).
    /// The new socket is non-blocking and close-on-exec, like every socket of this module.
    package func accept() throws(Errno) -> Socket? {
        guard !isClosed else { throw .badFileDescriptor }
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { system.accept(descriptor, $0, &length) }
            }
            if fd >= 0 {
                let socket = Socket(adopting: fd, system: system)
                if !Self.acceptedDescriptorsAreConfigured {
                    do throws(Errno) {
                        try socket.configureNewDescriptor()
                    } catch {
                        // That connection is gone already (macOS refuses `setsockopt` on a socket the
                        // peer reset in the backlog, with EINVAL): closed, and the next is taken.
                        socket.close()
                        continue
                    }
                }
                return socket
            }
            let error = Errno.current
            switch error {
            case .interrupted, .connectionAborted: continue
            case .wouldBlock: return nil
            default: throw error
            }
        }
    }
}

extension Socket {
    /// Whether ``SystemCalls/accept`` gives descriptors that are non-blocking and close-on-exec
    /// already (`accept4` on Linux): four `fcntl` calls fewer per connection.
    #if os(Linux)
    package static let acceptedDescriptorsAreConfigured = true
    #else
    package static let acceptedDescriptorsAreConfigured = false
    #endif
}

extension Socket {
    /// The addresses a server on `host` and `port` binds, in order (`AI_PASSIVE`).
    ///
    /// - Throws: ``WebSocketError/addressResolutionFailed(host:reason:)``.
    package static func listenAddresses(host: String, port: UInt16) throws(WebSocketError) -> [SocketAddress] {
        switch AddressResolution.resolve(host: host, port: port, passive: true) {
        case .success(let addresses): return addresses
        case .failure(let failure): throw .addressResolutionFailed(host: host, reason: failure.message)
        }
    }

    /// A listening socket on the first of `addresses` that binds. For a Unix socket whose file is in
    /// use, the file is removed and bound again once a connect shows that nobody listens there any
    /// more (a stale file left by a server that died); a live server's file is never taken over.
    ///
    /// - Throws: ``WebSocketError/bindFailed(_:_:)`` with the last address tried.
    package static func listening(on addresses: [SocketAddress], unixSocketPath: String?, backlog: Int32,
                                  reusePort: Bool = false, system: SystemCalls) throws(WebSocketError) -> Socket {
        var lastFailure: WebSocketError = .invalidArgument("no address to listen on")
        for address in addresses {
            do throws(Errno) {
                do throws(Errno) {
                    return try Socket.listening(on: address, backlog: backlog, reusePort: reusePort, system: system)
                } catch .addressInUse where unixSocketPath != nil {
                    guard case .failure(.failed(_, .connectionRefused)) = Socket.connect(to: [address], deadline: nil, system: system),
                          let path = unixSocketPath else { throw Errno.addressInUse }
                    _ = system.unlink(path)
                    return try Socket.listening(on: address, backlog: backlog, system: system)
                }
            } catch {
                lastFailure = .bindFailed(address, error)
            }
        }
        throw lastFailure
    }
}

/// What a server does once `accept` failed: one decision for every adapter's server.
package enum AcceptFailure: Equatable, Sendable {
    /// The failure concerned one connection (reset in the backlog, refused by a firewall rule, a
    /// protocol or network error pending on it): the next is accepted at once.
    case skip
    /// A passing shortage (descriptors, kernel memory): accepting pauses for ``pauseLength`` so that
    /// connections can end, rather than spinning on a listener that stays readable. The connections
    /// wait in the backlog meanwhile. Also what an unknown error gets.
    case pause
    /// The listening socket itself is broken (closed, not a listening socket): accepting stops.
    case stop

    /// How long accepting pauses after a shortage.
    package static let pauseLength: Duration = .milliseconds(100)

    package init(_ error: Errno) {
        switch error.rawValue {
        case EINTR, EAGAIN, ECONNABORTED, EPROTO, EPERM,
             // Network errors already pending on the new connection (Linux's accept(2): to be
             // treated as EAGAIN, by retrying).
             ENETDOWN, ENOPROTOOPT, EHOSTDOWN, EHOSTUNREACH, EOPNOTSUPP, ENETUNREACH:
            self = .skip
        case EBADF, EINVAL, ENOTSOCK:
            self = .stop
        default:
            // EMFILE, ENFILE, ENOBUFS, ENOMEM, and anything else.
            self = .pause
        }
    }
}
