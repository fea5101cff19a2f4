// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import EchoServerSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The baseline: the same traffic over plain TCP on 127.0.0.1 (`TCP_NODELAY` on both ends, one
/// server thread per connection). A client writes `requestSize` bytes and reads `replySize` back;
/// the server reads exactly `requestSize` bytes and writes the first `replySize` of them back.
/// With the sizes of the WebSocket frames, the same bytes cross the loopback per round trip.
final class RawEcho: EchoSystem {
    let port: UInt16
    let requestSize: Int
    let replySize: Int
    let stopping: StopFlag
    let accepting: JoinableThread

    /// A client's socket and buffers.
    ///
    /// `@unchecked Sendable`: the buffers are used by one thread at a time, the one doing its round
    /// trips.
    final class Client: @unchecked Sendable {
        let fd: Int32
        let request: UnsafeMutableRawBufferPointer
        let reply: UnsafeMutableRawBufferPointer

        init(fd: Int32, requestSize: Int, replySize: Int) {
            self.fd = fd
            request = .allocate(byteCount: requestSize, alignment: 16)
            request.withMemoryRebound(to: UInt8.self) { bytes in
                for index in bytes.indices { bytes.initializeElement(at: index, to: UInt8(truncatingIfNeeded: index &* 31)) }
            }
            reply = .allocate(byteCount: replySize, alignment: 16)
            reply.initializeMemory(as: UInt8.self, repeating: 0)
        }

        deinit {
            request.deallocate()
            reply.deallocate()
        }
    }

    init(requestSize: Int, replySize: Int) {
        let (listener, port) = RawSocket.listener()
        self.port = port
        self.requestSize = requestSize
        self.replySize = replySize
        let stopping = StopFlag()
        self.stopping = stopping
        accepting = RawSocket.acceptLoop(listener, until: stopping) { fd in
            RawEcho.serve(fd, requestSize: requestSize, replySize: replySize)
        }
    }

    func connect() -> Client {
        Client(fd: RawSocket.connected(port: port), requestSize: requestSize, replySize: replySize)
    }

    func roundTrip(_ client: Client) {
        guard RawSocket.writeAll(client.fd, UnsafeRawBufferPointer(client.request)),
              RawSocket.readExactly(client.fd, into: client.reply) else {
            fail("raw TCP echo client: the connection ended (\(String(cString: strerror(errno))))")
        }
    }

    func close(_ client: Client) {
        RawSocket.closeDescriptor(client.fd)
    }

    func stop() {
        stopping.raise()
        accepting.join()
    }

    /// One server connection: reads requests and writes their replies until the client closes.
    static func serve(_ fd: Int32, requestSize: Int, replySize: Int) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(requestSize, replySize), alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        defer {
            buffer.deallocate()
            RawSocket.closeDescriptor(fd)
        }
        while RawSocket.readExactly(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<requestSize])),
              RawSocket.writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[..<replySize])) {}
    }
}
