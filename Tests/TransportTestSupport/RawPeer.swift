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

/// A TCP listener on 127.0.0.1 whose first connection is handed to `body` on its own thread: a peer
/// that misbehaves on purpose, written with the module's socket layer and a core `Connection`.
package final class RawPeer: Sendable {
    package let listener: Socket
    package let port: UInt16
    private let finished = Locked(false)

    package init(_ body: @escaping @Sendable (Socket) -> Void) throws {
        guard case .success(let addresses) = AddressResolution.resolve(host: "127.0.0.1", port: 0, passive: true) else {
            throw Errno.addressNotAvailable
        }
        let listener = try Socket.listening(on: addresses[0], backlog: 4, system: .live)
        self.listener = listener
        port = listener.localAddress?.port ?? 0
        let finished = self.finished
        try spawnDetachedThread {
            defer {
                finished.withLock { $0 = true }
                finished.broadcast()
            }
            // A failure bound: the client may come late when the machine is busy (ThreadSanitizer).
            guard (try? listener.wait(for: Int16(POLLIN), deadline: now() + .seconds(60))) == true,
                  let accepted = try? listener.accept() else { return }
            body(accepted)
        }
    }

    package var url: String { "ws://127.0.0.1:\(port)/" }

    /// Waits (60 seconds at most, a failure bound) for `body` to return.
    package func join() -> Bool { finished.wait(until: { $0 }, deadline: now() + .seconds(60), now: now) }
}

/// A blocking helper: connects to 127.0.0.1:`port` with the socket layer.
package func rawConnect(port: UInt16) throws -> Socket {
    guard case .success(let addresses) = AddressResolution.resolve(host: "127.0.0.1", port: port) else {
        throw Errno.addressNotAvailable
    }
    guard case .success(let socket) = Socket.connect(to: addresses, deadline: now() + .seconds(60), system: .live) else {
        throw Errno.connectionRefused
    }
    return socket
}

extension Socket {
    /// Writes everything (test peers: 60 seconds without progress at most, a failure bound).
    package func writeAll(_ bytes: [UInt8]) throws {
        let outcome = try bytes.withUnsafeBytes { raw in
            Result { () throws(Errno) in try write(raw, idleTimeout: .seconds(60)) }
        }.get()
        guard outcome == .completed else { throw Errno.timedOut }
    }

    /// Reads once, waiting up to `timeout` (by default 60 s, a failure bound): the bytes, `[]` at the
    /// end of the stream, `nil` on timeout.
    package func readSome(timeout: Duration = .seconds(60)) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let outcome = try buffer.withUnsafeMutableBytes { raw in
            Result { () throws(Errno) in try read(into: raw, deadline: now() + timeout) }
        }.get()
        switch outcome {
        case .bytes(let count): return Array(buffer[..<count])
        case .endOfStream: return []
        case .nothing: return nil
        }
    }

    /// Reads until the end of the stream (or `timeout`): everything read, and whether the end came.
    package func readToEnd(timeout: Duration = .seconds(60)) throws -> (bytes: [UInt8], sawEnd: Bool) {
        let deadline = now() + timeout
        var all: [UInt8] = []
        while now() < deadline {
            guard let bytes = try readSome(timeout: deadline - now()) else { break }
            if bytes.isEmpty { return (all, true) }
            all += bytes
        }
        return (all, false)
    }
}

/// The server side of the opening handshake, by a core `Connection` over a raw socket: returns the
/// open connection (its input already holds whatever followed the request).
package func acceptHandshake(on socket: Socket) throws -> Connection {
    var connection = try Connection(role: .server)
    // Generous: under ThreadSanitizer, beside the other tests, a client's request can take seconds.
    let deadline = now() + .seconds(60)
    while now() < deadline {
        guard let bytes = try socket.readSome(timeout: deadline - now()), !bytes.isEmpty else { break }
        connection.receive(bytes)
        while let event = connection.nextEvent() {
            switch event {
            case .handshakeRequest: try connection.accept()
            case .handshakeCompleted:
                try socket.writeAll(connection.takeOutput())
                return connection
            default: break
            }
        }
    }
    throw Errno.timedOut
}

/// A server frame (unmasked) with this header byte and payload.
package func serverFrame(_ first: UInt8, _ payload: [UInt8], announcedLength: Int? = nil) -> [UInt8] {
    let length = announcedLength ?? payload.count
    var frame: [UInt8] = [first]
    if length < 126 {
        frame.append(UInt8(length))
    } else if length < 65_536 {
        frame += [126, UInt8(length >> 8), UInt8(length & 0xFF)]
    } else {
        frame.append(127)
        frame += (0..<8).map { UInt8(truncatingIfNeeded: length >> (56 - 8 * $0)) }
    }
    return frame + payload
}
