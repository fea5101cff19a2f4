// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore
import WebSocketAsync
import WebSocketTransport

/// `serve --health PATH` and `--metrics PATH`: the plain HTTP requests (`GET`, `HEAD`) `serve`
/// answers on its WebSocket port. Any other plain request keeps the core's answer, 426.
struct PlainPaths: Sendable {
    /// `--health`: 200 "ok" (503 while the server drains, which the server answers before asking).
    var health: String?
    /// `--metrics`: the server's counters in the Prometheus text format.
    var metrics: String?

    init(_ parsed: Arguments) throws(UsageError) {
        health = try Self.path(parsed, "--health")
        metrics = try Self.path(parsed, "--metrics")
        if let health, health == metrics { throw UsageError(message: "--health and --metrics need different paths") }
    }

    var isEnabled: Bool { health != nil || metrics != nil }

    private static func path(_ parsed: Arguments, _ option: String) throws(UsageError) -> String? {
        guard let path = parsed.value(option) else { return nil }
        guard path.hasPrefix("/"), !path.contains("?"), !path.contains(where: { $0.isWhitespace }) else {
            throw UsageError(message: "\(option): expected a path such as /health, got \(String(reflecting: path))")
        }
        return path
    }

    /// The answer to a plain request: its path (the query aside) picks the page; `.accept()` keeps
    /// the core's 426.
    func answer(_ request: Connection.HandshakeRequest, metrics source: MetricsSource) -> Connection.HandshakeDecision {
        let path = String(request.path)
        if path == health {
            return .reject(status: 200, headers: ["Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"],
                           body: Array("ok\n".utf8))
        }
        if path == metrics, let server = source.server {
            return .reject(status: 200, headers: ["Content-Type": ServerMetrics.prometheusContentType, "Cache-Control": "no-store"],
                           body: Array(server.metrics.prometheusText().utf8))
        }
        return .accept()
    }
}

/// The server whose counters `--metrics` answers, set once it listens (the decision is made before).
///
/// `@unchecked Sendable`: `server` is behind its lock.
final class MetricsSource: @unchecked Sendable {
    private let state = Locked<WebSocketServer?>(nil)

    var server: WebSocketServer? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
