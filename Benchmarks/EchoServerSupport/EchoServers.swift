// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import WebSocketCore
import WebSocketAsync
import WebSocketPOSIX

// `websocket-bench serve-echo KIND [--port P]`: one of our servers as an echo server process, for
// Benchmarks/servers (compare.sh, idle-connections.sh), where an external load generator drives it.
// Prints `listening PORT` on stdout once it accepts connections; serves until SIGTERM or SIGINT.
// `websocket-bench serve-echo --list` prints the kinds.

/// The servers `serve-echo` can start, by the name given on the command line.
///
/// To add a kind: a case here (its raw value is the KIND on the command line, and `--list`, which
/// compare.sh reads for its default kinds, prints it), and its branch in ``EchoServers/start(_:port:)``.
package enum EchoServerKind: String, CaseIterable, Sendable {
    /// `BlockingWebSocketServer` (WebSocketPOSIX): blocking sockets, one thread per connection.
    case blocking
    /// `WebSocketServer` (WebSocketAsync), handlers on the loop: events on the connection's loop.
    case loopHandler = "loop-handler"
    /// `WebSocketServer.lending`: the handler on the loop, messages lent from the read buffer.
    case loopLending = "loop-lending"
    /// `WebSocketServer`, handlers on a queue: every connection's events on one serial queue.
    case queueHandler = "queue-handler"
    /// `WebSocketServer`, async/await: `run`, a task per connection on its loop as executor.
    case async
}

/// One of our servers, started: the port it listens on, and how to stop it.
package struct StartedEchoServer: Sendable {
    package let port: UInt16
    /// The event-loop server, for the kinds that run one (to attach a backplane, say).
    package var server: WebSocketServer? = nil
    /// Stops accepting (and, where the server does, closes the open connections); may block until
    /// the server's own threads have ended.
    package let stop: @Sendable () -> Void
}

package enum EchoServers {
    /// The `listen` backlog of every kind (the kernel caps it at `somaxconn`, 4096 here), so that
    /// bursts of thousands of clients wait in the kernel rather than being refused.
    static let backlog: Int32 = 4096

    /// Starts `kind` on 127.0.0.1:`port` (0: any free port), echoing every text and binary message,
    /// with the default `Configuration` and `TransportOptions` (no extensions, `TCP_NODELAY` on).
    package static func start(_ kind: EchoServerKind, port: UInt16) throws(WebSocketError) -> StartedEchoServer {
        switch kind {
        case .blocking:
            let server = try BlockingWebSocketServer(host: "127.0.0.1", port: port, backlog: backlog)
            let serving = JoinableThread {
                do throws(WebSocketError) {
                    try server.serve { socket in
                        while let message = try? socket.receive() {
                            switch message {
                            case .text(let text): try? socket.send(text: text)
                            case .binary(let bytes): try? socket.send(binary: bytes)
                            default: break
                            }
                        }
                    }
                } catch {
                    fail("serve-echo blocking: \(error)")
                }
            }
            return StartedEchoServer(port: server.port, stop: {
                server.stop()
                serving.join()  // at most the close timeout plus a second, for open connections
            })

        case .loopHandler:
            // The handler reaches the server through this box, set once the server exists (a request
            // before that is echoed); broadcast.sh sends `broadcast K S` or `publish K S` (see
            // ``broadcastRequest(_:)``). Every connection subscribes to ``benchTopic`` as it opens.
            let serverBox = Locked<WebSocketServer?>(nil)
            let server = try WebSocketServer(host: "127.0.0.1", port: port, backlog: backlog) { socket, event in
                switch event {
                case .open:
                    _ = try? socket.subscribe(benchTopic)
                case .message(.text(let text)):
                    if let (publish, count, size) = broadcastRequest(text), let server = serverBox.withLock({ $0 }) {
                        broadcast(server, publish: publish, count: count, size: size)
                    } else {
                        echo({ () throws(WebSocketError) in try socket.send(text: text) }, refuse: { try? socket.sendClose(code: .internalError, reason: "echo buffer full") })
                    }
                case .message(.binary(let bytes)): echo({ () throws(WebSocketError) in try socket.send(binary: bytes) }, refuse: { try? socket.sendClose(code: .internalError, reason: "echo buffer full") })
                default: break
                }
            }
            serverBox.withLock { $0 = server }
            return StartedEchoServer(port: server.port, server: server, stop: { server.stop() })

        case .loopLending:
            let server = try WebSocketServer.lending(host: "127.0.0.1", port: port, backlog: backlog) { socket, event in
                switch event {
                case .text(let bytes):
                    echo({ () throws(WebSocketError) in try socket.send(text: String(decoding: bytes, as: UTF8.self)) },
                         refuse: { try? socket.sendClose(code: .internalError, reason: "echo buffer full") })
                case .binary(let bytes):
                    echo({ () throws(WebSocketError) in try socket.send(binary: bytes) },
                         refuse: { try? socket.sendClose(code: .internalError, reason: "echo buffer full") })
                case .event: break
                }
            }
            return StartedEchoServer(port: server.port, stop: { server.stop() })

        case .queueHandler:
            let queue = DispatchQueue(label: "serve-echo.handler")
            let server = try WebSocketServer(host: "127.0.0.1", port: port, backlog: backlog, queue: queue) { socket, event in
                switch event {
                case .message(.text(let text)): echo({ () throws(WebSocketError) in try socket.send(text: text) }, refuse: { try? socket.sendClose(code: .internalError, reason: "echo buffer full") })
                case .message(.binary(let bytes)): echo({ () throws(WebSocketError) in try socket.send(binary: bytes) }, refuse: { try? socket.sendClose(code: .internalError, reason: "echo buffer full") })
                default: break
                }
            }
            return StartedEchoServer(port: server.port, stop: { server.stop() })

        case .async:
            let server = try WebSocketServer(host: "127.0.0.1", port: port, backlog: backlog, maxPendingConnections: 1024)
            Task.detached {
                // Written inline, as the guide shows it: the body runs on the connection's loop and
                // stays there (a generic helper here, a nonisolated async function, would switch
                // executors after every await, as a user's own helper would).
                await server.run { socket in
                    do {
                        for try await message in socket.messages {
                            switch message {
                            case .text, .binary: try await socket.send(message)
                            default: break
                            }
                        }
                    } catch {
                        // The connection failed or was lost; the socket is closed already.
                    }
                }
            }
            return StartedEchoServer(port: server.port, stop: { server.stop() })
        }
    }

    /// The topic every loop-handler connection subscribes to, for `publish K S`.
    private static let benchTopic = "bench"

    /// The K and S of a `broadcast K S` or `publish K S` text message (loop-handler), and whether it
    /// is a publish: 1 ≤ K ≤ 100 000, 8 ≤ S ≤ 1 MiB and K × S ≤ 64 MiB (every message stays in memory
    /// until the slowest connection has it). Anything else, `nil`: the message is echoed.
    private static func broadcastRequest(_ text: String) -> (publish: Bool, count: Int, size: Int)? {
        let words = text.split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 3, words[0] == "broadcast" || words[0] == "publish",
              let count = Int(words[1]), let size = Int(words[2]),
              (1...100_000).contains(count), (8...(1 << 20)).contains(size), count * size <= 64 << 20
        else { return nil }
        return (words[0] == "publish", count, size)
    }

    /// Sends `count` binary messages of `size` bytes to every open connection, each framed once:
    /// with ``WebSocketServer/broadcast(binary:)``, or published to ``benchTopic``
    /// (``WebSocketServer/publish(topic:binary:)``). Message k carries k as a big-endian UInt64 in
    /// its first 8 bytes, then byte i is `i * 31 + 7` (mod 256), as wsload's `broadcast` checks.
    private static func broadcast(_ server: WebSocketServer, publish: Bool, count: Int, size: Int) {
        var payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        for sequence in 0..<count {
            for i in 0..<8 { payload[i] = UInt8(truncatingIfNeeded: UInt64(sequence) >> (8 * (7 - i))) }
            if publish {
                server.publish(topic: benchTopic, binary: payload)
            } else {
                server.broadcast(binary: payload)
            }
        }
    }

    /// Sends an echo from a handler face. An echo the socket refuses because its output buffer is
    /// full (64 MiB unread by the client) would be lost: the connection is closed with 1011
    /// (`refuse`) instead, so that the client sees an error rather than a missing echo.
    private static func echo(_ send: () throws(WebSocketError) -> Void, refuse: () -> Void) {
        do throws(WebSocketError) {
            try send()
        } catch .bufferFull {
            refuse()
        } catch {
            // Not open any more (the client closed meanwhile): nothing to echo to.
        }
    }

    /// `serve-echo KIND [--port P]`, or `serve-echo --list`.
    package static func main(_ arguments: [String], afterStart: (StartedEchoServer) -> Void = { _ in }) -> Never {
        // A server process, as `websocket serve` is: one heap for all the loops, set before any starts.
        WebSocketServer.useOneHeapArena()
        if arguments == ["--list"] {
            for kind in EchoServerKind.allCases { print(kind.rawValue) }
            exit(0)
        }
        let usage = "usage: \(CommandLine.arguments.first ?? "websocket-bench") serve-echo KIND [--port P]  (KIND: "
            + EchoServerKind.allCases.map(\.rawValue).joined(separator: ", ") + "), or serve-echo --list"
        guard let name = arguments.first else { usageError(usage) }
        guard let kind = EchoServerKind(rawValue: name) else { usageError("unknown kind \(name); \(usage)") }
        var port: UInt16 = 0
        var rest = arguments.dropFirst()
        while let option = rest.popFirst() {
            guard option == "--port", let text = rest.popFirst(), let value = UInt16(text) else { usageError(usage) }
            port = value
        }

        // First, while this is the only thread: threads created from now on inherit the mask, so
        // SIGINT and SIGTERM stay pending until sigwait below takes them.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
        signal(SIGPIPE, SIG_IGN)
        // Every connection holds at least one descriptor (the blocking server's hold three).
        raiseDescriptorLimit(to: Int.max)

        let server: StartedEchoServer
        do throws(WebSocketError) {
            server = try start(kind, port: port)
        } catch {
            fail("serve-echo \(kind.rawValue): \(error)")
        }
        afterStart(server)
        writeLine("listening \(server.port)")

        var number: Int32 = 0
        while sigwait(&stopSignals, &number) != 0 {}
        server.stop()
        exit(0)
    }

    private static func usageError(_ message: String) -> Never {
        let line = Array("\(message)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(2)
    }

    /// Writes `text` and a newline to standard output at once (unbuffered, for a script reading
    /// through a pipe).
    private static func writeLine(_ text: String) {
        let bytes = Array("\(text)\n".utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            offset += n
        }
    }
}
