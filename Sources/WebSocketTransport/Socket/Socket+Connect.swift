// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore

extension Socket {
    /// Why no connection was made.
    package enum ConnectFailure: Error, Sendable, Hashable {
        /// The deadline passed before any address accepted.
        case timedOut
        /// Every address refused or failed; the error of the last attempt, and its address.
        case failed(SocketAddress, Errno)
    }

    /// Connects to the first of `addresses` that accepts, trying each in turn (the order
    /// `getaddrinfo` gave, which prefers what this host can reach). All attempts share `deadline`.
    package static func connect(to addresses: [SocketAddress], deadline: Connection.Instant?, system: SystemCalls)
        -> Result<Socket, ConnectFailure>
    {
        var lastFailure = ConnectFailure.timedOut
        for address in addresses {
            do throws(Errno) {
                guard let socket = try connect(to: address, deadline: deadline, system: system) else {
                    return .failure(.timedOut)
                }
                return .success(socket)
            } catch {
                lastFailure = .failed(address, error)
            }
        }
        return .failure(lastFailure)
    }

    /// A non-blocking connect to one address, waited for with `poll`: `nil` when the deadline passes
    /// first.
    package static func connect(to address: SocketAddress, deadline: Connection.Instant?, system: SystemCalls) throws(Errno) -> Socket? {
        let (socket, isConnected) = try startConnect(to: address, system: system)
        if isConnected { return socket }
        guard try socket.wait(for: Int16(POLLOUT), deadline: deadline) else { return nil }
        try socket.finishConnect()
        return socket
    }

    /// Starts a non-blocking connect to `address`: a new socket, and whether it is connected already
    /// (otherwise wait until it is writable, then call ``finishConnect()``). A connect interrupted
    /// by a signal goes on in the background (POSIX), so `EINTR` is waited for like `EINPROGRESS`,
    /// never retried (a retry fails with `EALREADY`).
    package static func startConnect(to address: SocketAddress, system: SystemCalls) throws(Errno)
        -> (socket: Socket, isConnected: Bool)
    {
        let socket = try Socket.stream(family: address.familyNumber, system: system)
        let result = address.withSockaddr { system.connect(socket.descriptor, $0, $1) }
        if result == 0 { return (socket, true) }
        let error = Errno.current
        switch error {
        case .inProgress, .interrupted, .alreadyInProgress:
            return (socket, false)
        case .isConnected:
            return (socket, true)
        default:
            throw error
        }
    }

    /// After a connect started by ``startConnect(to:system:)`` made the socket writable: throws the
    /// connect's error (refused, unreachable…), if it failed.
    package func finishConnect() throws(Errno) {
        if let failure = try takePendingError() { throw failure }
    }
}
