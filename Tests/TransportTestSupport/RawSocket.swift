// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore
import WebSocketTransport

/// A misbehaving peer made of a plain socket: it speaks exactly the bytes a test tells it to. Every
/// wait is bounded by a timeout (`poll`), so that no test can hang.
package final class RawSocket: Sendable {
    package let socket: Socket

    package init(_ socket: Socket) { self.socket = socket }

    /// A connection to `127.0.0.1:port`.
    package static func connect(port: UInt16) throws -> RawSocket {
        RawSocket(try rawConnect(port: port))
    }

    /// Bytes read within `timeout` (by default 60 s, a failure bound): `nil` on timeout, `[]` at the
    /// end of the stream or a reset.
    package func read(timeout: Duration = .seconds(60)) -> [UInt8]? {
        do {
            return try socket.readSome(timeout: timeout)
        } catch {
            return []
        }
    }

    /// Reads until the end of the stream, for at most `timeout` overall. Returns whether it ended:
    /// with a FIN, or a reset (the peer closed with bytes it had not read); any other failure is no
    /// end.
    package func readUntilEOF(timeout: Duration = .seconds(60)) -> Bool {
        do {
            return try socket.readToEnd(timeout: timeout).sawEnd
        } catch let error as Errno {
            return error == .connectionReset
        } catch {
            return false
        }
    }

    /// Writes every byte (a failure, such as a reset, is ignored: the test looks at what follows).
    package func write(_ bytes: [UInt8]) {
        try? socket.writeAll(bytes)
    }

    package func close() { socket.close() }

    /// Closes with a reset instead of a FIN (`SO_LINGER` with a zero timeout): the peer's next read
    /// or write fails with `ECONNRESET`.
    package func closeWithReset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(socket.descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        socket.close()
    }

    /// (As a server) Reads the client's opening handshake request and accepts it with the core,
    /// returning the server connection (for framing what the test sends next).
    package func acceptHandshake() throws -> Connection {
        try TransportTestSupport.acceptHandshake(on: socket)
    }
}

/// A listening socket on `127.0.0.1`, for raw servers.
package final class RawListener: Sendable {
    package let listener: Socket
    package let port: UInt16

    package init(backlog: Int32 = 16) throws {
        guard case .success(let addresses) = AddressResolution.resolve(host: "127.0.0.1", port: 0, passive: true) else {
            throw Errno.addressNotAvailable
        }
        listener = try Socket.listening(on: addresses[0], backlog: backlog, system: .live)
        port = listener.localAddress?.port ?? 0
    }

    /// Accepts one connection within `timeout`.
    package func accept(timeout: Duration = .seconds(60)) throws -> RawSocket {
        let deadline = now() + timeout
        while true {
            if let socket = try listener.accept() { return RawSocket(socket) }
            guard try listener.wait(for: Int16(POLLIN), deadline: deadline) else { throw Errno.timedOut }
        }
    }

    package func close() { listener.close() }
}

/// A port of `127.0.0.1` that refuses every connection for as long as this object is kept: a socket
/// bound to it that never listens. A port that was merely free a moment ago (a listener closed
/// again) may be handed to the listener of a test running beside, and a connect there succeeds.
package final class RefusingPort: Sendable {
    private let socket: Socket
    package let port: UInt16

    package init() throws {
        guard case .success(let addresses) = AddressResolution.resolve(host: "127.0.0.1", port: 0, passive: true) else {
            throw Errno.addressNotAvailable
        }
        let socket = try Socket.stream(family: addresses[0].familyNumber, system: .live)
        guard addresses[0].withSockaddr({ bind(socket.descriptor, $0, $1) }) == 0, let port = socket.localAddress?.port else {
            let failure = Errno.current
            socket.close()
            throw failure
        }
        self.socket = socket
        self.port = port
    }

    /// Frees the port.
    package func close() { socket.close() }
}
