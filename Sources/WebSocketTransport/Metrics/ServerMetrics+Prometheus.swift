// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension ServerMetrics {
    /// The media type of ``prometheusText(prefix:)``: Prometheus's text exposition format 0.0.4.
    public static let prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The counters in Prometheus's text exposition format (version 0.0.4): a `# HELP` and a
    /// `# TYPE` line per metric family, then its samples, each name starting with `prefix` and `_`.
    /// Counters end in `_total`; ``connectionsOpen`` is a gauge; ``pingRoundTrips`` a histogram in
    /// seconds (cumulative `_bucket` samples, `_sum`, `_count`). Labelled families list every
    /// ``Refusal`` (zeros too, so that the series exist from the start) and the statuses and close
    /// codes seen, in ascending order (close code 0, any other code, as `code="other"`).
    ///
    /// Exposition format: <https://prometheus.io/docs/instrumenting/exposition_formats/>
    public func prometheusText(prefix: String = "websocket") -> String {
        var out = PrometheusWriter(prefix: prefix)
        out.family("connections_accepted_total", .counter, "Connections accepted from the listening sockets.")
        out.sample("connections_accepted_total", connectionsAccepted)
        out.family("connections_opened_total", .counter, "Connections whose opening handshake completed.")
        out.sample("connections_opened_total", connectionsOpened)
        out.family("connections_open", .gauge, "Connections open now (or closing).")
        out.sample("connections_open", connectionsOpen)
        out.family("connections_ended_total", .counter, "Accepted connections that ended, opened or not.")
        out.sample("connections_ended_total", connectionsEnded)
        out.family("connections_refused_total", .counter, "Connections that never opened, by reason.")
        for reason in Refusal.allCases {
            out.sample("connections_refused_total", refused[reason] ?? 0, label: ("reason", reason.rawValue))
        }
        out.counters("handshakes_failed_total", "Opening handshakes answered with an HTTP error, by status.", handshakesFailed,
                     label: "status") { String($0) }
        out.counters("plain_requests_total", "Plain HTTP requests (health checks, scrapes) answered, by status.", plainRequests,
                     label: "status") { String($0) }
        out.counters("closes_sent_total", "Close frames sent, by code.", closesSent, label: "code") { $0 == 0 ? "other" : String($0) }
        out.counters("closes_received_total", "Close frames received, by code.", closesReceived, label: "code") {
            $0 == 0 ? "other" : String($0)
        }
        out.family("messages_received_total", .counter, "Messages read from the peers.")
        out.sample("messages_received_total", messagesReceived)
        out.family("messages_sent_total", .counter, "Messages queued to the peers.")
        out.sample("messages_sent_total", messagesSent)
        out.family("bytes_received_total", .counter, "Bytes read from the sockets.")
        out.sample("bytes_received_total", bytesReceived)
        out.family("bytes_sent_total", .counter, "Bytes written to the sockets.")
        out.sample("bytes_sent_total", bytesSent)
        out.family("pings_sent_total", .counter, "Pings sent awaiting their pongs.")
        out.sample("pings_sent_total", pingsSent)
        out.family("ping_round_trip_seconds", .histogram, "Round trips of the pings answered.")
        var cumulative = 0
        for (index, count) in pingRoundTrips.buckets.enumerated() {
            cumulative += count
            let bound = index < Histogram.bounds.count ? "\(Histogram.bounds[index])" : "+Inf"
            out.sample("ping_round_trip_seconds_bucket", cumulative, label: ("le", bound))
        }
        out.line("ping_round_trip_seconds_sum", "\(Double(pingRoundTrips.sumNanoseconds) / 1e9)")
        out.sample("ping_round_trip_seconds_count", pingRoundTrips.count)
        out.family("dropped_backpressure_total", .counter, "Connections closed because the peer did not keep up (write timeout, or a topic's subscriber at its limit).")
        out.sample("dropped_backpressure_total", droppedForBackpressure)
        return out.text
    }
}

/// Lines of the text exposition format, names prefixed.
private struct PrometheusWriter {
    enum Kind: String { case counter, gauge, histogram }

    let prefix: String
    var text = ""

    /// A counter family with one sample per key of `values`, in ascending order, labelled `label`.
    mutating func counters<Key: Comparable>(_ name: String, _ help: String, _ values: [Key: Int], label: String,
                                            _ text: (Key) -> String) {
        family(name, .counter, help)
        for (key, count) in values.sorted(by: { $0.key < $1.key }) { sample(name, count, label: (label, text(key))) }
    }

    mutating func family(_ name: String, _ kind: Kind, _ help: String) {
        text += "# HELP \(prefix)_\(name) \(help)\n# TYPE \(prefix)_\(name) \(kind.rawValue)\n"
    }

    mutating func sample(_ name: String, _ value: Int, label: (name: String, value: String)? = nil) {
        if let label {
            line("\(name){\(label.name)=\"\(label.value)\"}", String(value))
        } else {
            line(name, String(value))
        }
    }

    mutating func line(_ name: String, _ value: String) {
        text += "\(prefix)_\(name) \(value)\n"
    }
}
