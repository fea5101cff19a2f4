// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import EchoServerSupport

/// Echo over loopback: our WebSocket client and server (WebSocketPOSIX, blocking sockets, one thread
/// per connection) against the same traffic over plain TCP in the same process. The baseline moves
/// the same bytes per round trip as the WebSocket frames do (payload plus frame headers and mask), so
/// the ratio is the cost of framing, masking, validation and the adapter over raw TCP.
extension Workloads {
    /// `connections` clients, each doing round trips of `size`-byte binary messages one at a time;
    /// with one connection, the rate is timed as the other workloads are (``Measure/rate``); with
    /// more, every client runs on its own thread and the aggregate rate is sampled, ours first.
    static func echo(name: String, size: Int, connections: Int = 1) -> Workload {
        Workload(name: name, run: {
            let ours = WebSocketEcho(size: size)
            let theirs = RawEcho(requestSize: Fixtures.frames(count: 1, size: size, fromClient: true).count,
                                 replySize: Fixtures.frames(count: 1, size: size, fromClient: false).count)
            let rates: (ours: Double, theirs: Double)
            if connections == 1 {
                rates = oneConnection(ours, theirs)
            } else {
                raiseDescriptorLimit(to: 8 * connections + 256)
                rates = (manyConnections(ours, count: connections), manyConnections(theirs, count: connections))
            }
            func describe(_ rate: Double) -> String {
                let roundTrips = "\(Int(rate.rounded())) round trips/s"
                return size < 64 << 10 ? roundTrips : "\(roundTrips) (\(formatRate(rate * Double(size))))"
            }
            report(name, ours: describe(rates.ours), baselineName: "raw TCP", theirs: describe(rates.theirs),
                   ratio: rates.ours / rates.theirs)
        }, frames: nil)
    }

    /// Round trips per second over one connection of each system, both open at once and timed in
    /// turn (twice each, best run kept), so that a change in the machine's load affects both.
    static func oneConnection<Ours: EchoSystem, Theirs: EchoSystem>(_ ours: Ours, _ theirs: Theirs) -> (ours: Double, theirs: Double) {
        let (ourClient, theirClient) = (ours.connect(), theirs.connect())
        var rates = (ours: 0.0, theirs: 0.0)
        for _ in 0..<2 {
            rates.ours = max(rates.ours, Measure.rate(work: 1, runs: 3, seconds: 0.4) { ours.roundTrip(ourClient) })
            rates.theirs = max(rates.theirs, Measure.rate(work: 1, runs: 3, seconds: 0.4) { theirs.roundTrip(theirClient) })
        }
        ours.close(ourClient)
        theirs.close(theirClient)
        ours.stop()
        theirs.stop()
        return rates
    }

    /// Round trips per second over `count` connections of one system at once, each on its own thread.
    static func manyConnections<System: EchoSystem>(_ system: System, count: Int) -> Double {
        // Connected one after the other, so that the listen backlog never overflows.
        let clients = (0..<count).map { _ in system.connect() }
        let progress = EchoProgress()
        let threads = clients.map { client in
            JoinableThread {
                while !progress.stopping.isRaised {
                    system.roundTrip(client)
                    progress.countRoundTrip()
                }
                system.close(client)
            }
        }
        let rate = Measure.sampledRate { progress.roundTrips }
        progress.stopping.raise()
        for thread in threads { thread.join() }
        system.stop()
        return rate
    }
}
