// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@testable import WebSocketTransport

@Suite("Server counters: per-loop meters summed, rendered for Prometheus")
struct ServerMetricsTests {
    @Test("Two loops' meters sum into one value; statuses, refusals and close codes land in their keys")
    func metersSum() {
        let storage = (ServerMeter.Storage(), ServerMeter.Storage())
        let first = storage.0.meter, second = storage.1.meter
        first.countAccepted()
        second.countAccepted()
        second.countAccepted()
        first.countOpened()
        first.countBytesReceived(100)
        second.countBytesSent(40)
        first.countMessageReceived()
        second.countMessageSent()
        first.countHandshakeFailed(status: 403)
        second.countHandshakeFailed(status: 403)
        first.countRefusal(.rejected)
        second.countRefusal(.handshakeTimeout)
        first.countPlainRequest(status: 200)
        first.countPingSent()
        first.countRoundTrip(.milliseconds(3))
        second.countRoundTrip(.seconds(10))
        first.countEnded(wasOpen: true, sent: .normalClosure, received: Connection.CloseCode(rawValue: 4001), droppedForBackpressure: false)
        second.countEnded(wasOpen: false, sent: nil, received: nil, droppedForBackpressure: true)
        let metrics = ServerMeter.sum([first, second])
        withExtendedLifetime(storage) {}
        #expect(metrics.connectionsAccepted == 3)
        #expect(metrics.connectionsOpened == 1)
        #expect(metrics.connectionsOpen == 0)
        #expect(metrics.connectionsEnded == 2)
        #expect(metrics.bytesReceived == 100 && metrics.bytesSent == 40)
        #expect(metrics.messagesReceived == 1 && metrics.messagesSent == 1)
        #expect(metrics.handshakesFailed == [403: 2])
        #expect(metrics.refused == [.rejected: 1, .handshakeTimeout: 1])
        #expect(metrics.plainRequests == [200: 1])
        #expect(metrics.closesSent == [1000: 1])
        #expect(metrics.closesReceived == [4001: 1])
        #expect(metrics.droppedForBackpressure == 1)
        #expect(metrics.pingsSent == 1)
        #expect(metrics.pingRoundTrips.count == 2)
        #expect(metrics.pingRoundTrips.sumNanoseconds == 10_003_000_000)
        // 3 ms in the bucket up to 5 ms (index 3); 10 s over the greatest bound.
        var buckets = Array(repeating: 0, count: ServerMetrics.Histogram.bounds.count + 1)
        buckets[3] = 1
        buckets[buckets.count - 1] = 1
        #expect(metrics.pingRoundTrips.buckets == buckets)
    }

    @Test("The text exposition format: HELP and TYPE per family, labelled samples sorted, a cumulative histogram")
    func prometheusText() {
        var metrics = ServerMetrics()
        metrics.connectionsAccepted = 5
        metrics.connectionsOpen = 2
        metrics.refused = [.draining: 1]
        metrics.handshakesFailed = [503: 1, 403: 2]
        metrics.closesSent = [1001: 2, 1000: 1, 0: 1]
        metrics.pingRoundTrips.buckets[0] = 1
        metrics.pingRoundTrips.buckets[2] = 2
        metrics.pingRoundTrips.count = 3
        metrics.pingRoundTrips.sumNanoseconds = 2_500_000
        let text = metrics.prometheusText(prefix: "ws")
        let lines = text.split(separator: "\n").map(String.init)
        #expect(text.hasSuffix("\n"))
        #expect(lines.prefix(3) == ["# HELP ws_connections_accepted_total Connections accepted from the listening sockets.",
                                    "# TYPE ws_connections_accepted_total counter", "ws_connections_accepted_total 5"])
        #expect(lines.contains("# TYPE ws_connections_open gauge"))
        #expect(lines.contains("ws_connections_open 2"))
        #expect(lines.contains("ws_connections_refused_total{reason=\"draining\"} 1"))
        #expect(lines.contains("ws_connections_refused_total{reason=\"abandoned\"} 0"))
        let failed = lines.filter { $0.hasPrefix("ws_handshakes_failed_total{") }
        #expect(failed == ["ws_handshakes_failed_total{status=\"403\"} 2", "ws_handshakes_failed_total{status=\"503\"} 1"])
        let closes = lines.filter { $0.hasPrefix("ws_closes_sent_total{") }
        #expect(closes == ["ws_closes_sent_total{code=\"other\"} 1", "ws_closes_sent_total{code=\"1000\"} 1",
                           "ws_closes_sent_total{code=\"1001\"} 2"])
        #expect(lines.contains("# TYPE ws_ping_round_trip_seconds histogram"))
        let buckets = lines.filter { $0.hasPrefix("ws_ping_round_trip_seconds_bucket") }
        #expect(buckets.count == ServerMetrics.Histogram.bounds.count + 1)
        #expect(buckets.first == "ws_ping_round_trip_seconds_bucket{le=\"0.0005\"} 1")
        #expect(buckets.dropFirst(2).first == "ws_ping_round_trip_seconds_bucket{le=\"0.0025\"} 3")
        #expect(buckets.last == "ws_ping_round_trip_seconds_bucket{le=\"+Inf\"} 3")
        #expect(lines.contains("ws_ping_round_trip_seconds_sum 0.0025"))
        #expect(lines.contains("ws_ping_round_trip_seconds_count 3"))
        // Every sample line belongs to a family announced before it.
        var announced: Set<String> = []
        for line in lines {
            if line.hasPrefix("# TYPE ") {
                announced.insert(String(line.split(separator: " ")[2]))
                continue
            }
            if line.hasPrefix("#") { continue }
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            let family = ["_bucket", "_sum", "_count"].reduce(name) { name, suffix in
                name.hasSuffix(suffix) && announced.contains(String(name.dropLast(suffix.count))) ? String(name.dropLast(suffix.count)) : name
            }
            #expect(announced.contains(family), "\(line)")
        }
    }
}
