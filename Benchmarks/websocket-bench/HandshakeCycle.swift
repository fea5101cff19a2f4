// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

// `handshake-server`: a server connection's whole life in the core, as the handshake cycles of
// Benchmarks/servers (`wsload handshakes`) drive it, with no socket, loop or adapter: a new
// `Connection` with the default configuration, the time reported, the client's request read (the
// one wsload sends), accepted, the 101 taken, the client's Close read and answered, the end of the
// stream read. What is left of a server's cost per connection once the adapter's share is taken
// away; `Benchmarks/callgrind.sh handshake-server` counts it per cycle. The baseline is the accept
// value alone (SHA-1 and base64), the one computation no handshake can skip.
//
// `handshake-server-browser`: the same life, with the request a browser sends (Chrome's 13 fields,
// 610 bytes: a long User-Agent, the languages, a cookie, an offer of permessage-deflate, which the
// default configuration does not take).
extension Workloads {
    /// wsload's request, byte for byte (its key included).
    static let handshakeRequest = Array(("GET / HTTP/1.1\r\nHost: 127.0.0.1:9001\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)

    /// The request of a browser (Chrome 131 on Linux, its key and cookie made up), byte for byte.
    static let browserHandshakeRequest = Array(("GET /chat?room=lobby HTTP/1.1\r\nHost: chat.example.com\r\n"
        + "Connection: Upgrade\r\nPragma: no-cache\r\nCache-Control: no-cache\r\n"
        + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36\r\n"
        + "Upgrade: websocket\r\nOrigin: https://chat.example.com\r\nSec-WebSocket-Version: 13\r\n"
        + "Accept-Encoding: gzip, deflate, br, zstd\r\nAccept-Language: en-US,en;q=0.9,fr;q=0.8\r\n"
        + "Cookie: session=6f1c2a9e0b7d4e3f8a5c1d2e3f4a5b6c; theme=dark; _ga=GA1.1.123456789.1733500000\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n").utf8)

    static func handshakeServer() -> Workload {
        handshakeServer(name: "handshake-server", request: handshakeRequest)
    }

    static func handshakeServerBrowser() -> Workload {
        handshakeServer(name: "handshake-server-browser", request: browserHandshakeRequest)
    }

    private static func handshakeServer(name: String, request: [UInt8]) -> Workload {
        // The client's Close (1000), masked, as a client connection writes it. Made when the workload
        // runs, not when the list of workloads is built: connections made at start-up change the heap
        // that every other workload then allocates from (serialize-server-1KiB counted 116
        // instructions more per frame in `_int_malloc` so).
        func makeCloseFrame() -> [UInt8] {
            var (client, _) = Fixtures.openPair()
            do {
                try client.close(code: .normalClosure)
            } catch {
                fatalError("benchmark setup failed: \(error)")
            }
            return client.takeOutput()
        }
        /// Runs `count` cycles; returns the bytes the server wrote (the 101 and the Close reply each time).
        func cycles(_ count: Int, closeFrame: [UInt8]) -> Int {
            var written = 0
            do {
                for index in 0..<count {
                    var server = try Connection(role: .server, configuration: Connection.Configuration(),
                                                random: Connection.SeededGenerator(seed: UInt64(index)))
                    server.advanceTime(to: .zero)
                    server.receive(request)
                    while let event = server.nextEvent() {
                        if case .handshakeRequest = event { try server.accept() }
                    }
                    written &+= server.takeOutput().count
                    server.receive(closeFrame)
                    while server.nextEvent() != nil {}
                    written &+= server.takeOutput().count
                    server.receiveEOF()
                    while server.nextEvent() != nil {}
                    guard case .closed(let status) = server.state, status.wasClean else {
                        fatalError("\(name): the cycle did not end cleanly: \(server.state)")
                    }
                }
            } catch {
                fatalError("\(name): \(error)")
            }
            return written
        }
        return connectionLives(name: name, written: "a 101 and a Close", atLeast: 130, fixture: makeCloseFrame, cycles: cycles)
    }

    /// A workload of connection lives in the core: `cycles(n, fixture)` runs `n` and returns the
    /// bytes the connections wrote, at least `atLeast` for one (`written` says what). The fixture is
    /// made when the workload runs. The baseline is the accept value alone, which both ends compute.
    static func connectionLives<Fixture>(name: String, written: String, atLeast: Int, fixture: @escaping () -> Fixture,
                                         cycles: @escaping (Int, Fixture) -> Int) -> Workload {
        Workload(name: name, run: {
            let count = 5_000
            let made = fixture()
            let oneCycle = cycles(1, made)
            precondition(oneCycle >= atLeast, "\(name): not \(written) written (\(oneCycle) bytes)")
            let ours = Measure.rate(work: Double(count)) { blackHole(cycles(count, made)) }
            var accept: [UInt8] = []
            accept.reserveCapacity(64)
            let baseline = Measure.rate(work: 1) {
                accept.removeAll(keepingCapacity: true)
                BenchmarkHooks.appendAcceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==", to: &accept)
                blackHole(accept)
            }
            report(name, ours: "\(format3(ours / 1e3)) k cycles/s", baselineName: "the accept value alone",
                   theirs: "\(format3(baseline / 1e3)) k/s", ratio: ours / baseline)
        }, frames: { n, _ in
            blackHole(cycles(n, fixture()))
        })
    }
}
