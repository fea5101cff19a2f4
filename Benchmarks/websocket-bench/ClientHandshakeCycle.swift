// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

// `handshake-client`: a client connection's whole life in the core, the mirror of
// `handshake-server`: a new `Connection` with the default configuration (its request written), the
// server's 101 read (the answer this library's server gives), the server's Close read and answered,
// the end of the stream read. `Benchmarks/callgrind.sh handshake-client` counts it per cycle; the
// baseline is the accept value alone, which the client computes to check the answer.
extension Workloads {
    static func handshakeClient() -> Workload {
        let name = "handshake-client"
        let options = Connection.ClientOptions(url: Fixtures.url)
        // Each cycle draws the same key (the same seed), so one server answer fits them all.
        func client() throws -> Connection {
            try Connection(role: .client(options), configuration: Connection.Configuration(),
                           random: Connection.SeededGenerator(seed: 7))
        }
        // Made when the workload runs, not when the list of workloads is built (see handshake-server).
        func makeAnswer() -> (answer: [UInt8], closeFrame: [UInt8]) {
            do {
                var client = try client()
                var server = try Connection(role: .server, random: Connection.SeededGenerator(seed: 8))
                server.receive(client.takeOutput())
                while let event = server.nextEvent() {
                    if case .handshakeRequest = event { try server.accept() }
                }
                let answer = server.takeOutput()
                try server.close(code: .normalClosure)
                return (answer, server.takeOutput())
            } catch {
                fatalError("benchmark setup failed: \(error)")
            }
        }
        /// Runs `count` cycles; returns the bytes the client wrote (its request and Close reply each time).
        func cycles(_ count: Int, answer: [UInt8], closeFrame: [UInt8]) -> Int {
            var written = 0
            do {
                for _ in 0..<count {
                    var client = try client()
                    client.advanceTime(to: .zero)
                    written &+= client.takeOutput().count
                    client.receive(answer)
                    while client.nextEvent() != nil {}
                    client.receive(closeFrame)
                    while client.nextEvent() != nil {}
                    written &+= client.takeOutput().count
                    client.receiveEOF()
                    while client.nextEvent() != nil {}
                    guard case .closed(let status) = client.state, status.wasClean else {
                        fatalError("\(name): the cycle did not end cleanly: \(client.state)")
                    }
                }
            } catch {
                fatalError("\(name): \(error)")
            }
            return written
        }
        return connectionLives(name: name, written: "a request and a Close", atLeast: 101, fixture: makeAnswer) {
            cycles($0, answer: $1.answer, closeFrame: $1.closeFrame)
        }
    }
}
