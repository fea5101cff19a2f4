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
        return Workload(name: name, run: {
            let count = 5_000
            let (answer, closeFrame) = makeAnswer()
            let oneCycle = cycles(1, answer: answer, closeFrame: closeFrame)
            precondition(oneCycle > 100, "\(name): no request and Close written (\(oneCycle) bytes)")
            let ours = Measure.rate(work: Double(count)) { blackHole(cycles(count, answer: answer, closeFrame: closeFrame)) }
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
            let (answer, closeFrame) = makeAnswer()
            blackHole(cycles(n, answer: answer, closeFrame: closeFrame))
        })
    }
}
