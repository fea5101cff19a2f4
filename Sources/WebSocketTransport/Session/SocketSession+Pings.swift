// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// A ping whose pong someone waits for.
struct PingWaiter: Sendable {
    var id: Connection.PingID
    var completion: SessionCompletion<Duration>
}

extension SocketSession {
    /// Sends a ping whose pong is awaited (RFC 6455 §5.5.2) and resumes `completion` with the round
    /// trip once the pong arrives (the connection matches it, §5.5.3), or with why it did not:
    /// ``WebSocketError/timedOut(_:)`` (`.ping`) after `timeout`, ``WebSocketError/closed(_:)`` when
    /// the connection ended first, ``WebSocketError/connection(_:)`` when the ping was refused,
    /// ``WebSocketError/bufferFull(bufferedAmount:)`` at the output limit (a drain follows).
    package mutating func ping(_ payload: [UInt8]?, timeout: Duration?, completion: @escaping SessionCompletion<Duration>) {
        if case .finished(let ending) = phase {
            resume(completion, .failure(ending.error))
            return
        }
        // Through `perform`, as every send: the transport's failure first, a full buffer as
        // `.bufferFull` with its drain owed.
        var id: Connection.PingID?
        do throws(WebSocketError) {
            try perform(isData: false) { (connection: inout Connection) throws(Connection.UsageError) in
                id = try connection.sendPing(payload, awaitingPongWithin: timeout)
            }
        } catch {
            resume(completion, .failure(error))
            return
        }
        if let id {
            meter?.countPingSent()
            pingWaiters.append(PingWaiter(id: id, completion: completion))
        }
    }

    /// Queues the resumptions of the pings the connection has ended (answered, timed out, closed).
    mutating func collectPingOutcomes() {
        guard !pingWaiters.isEmpty else { return }
        while let (id, outcome) = pipeline.connection.nextPingOutcome() {
            guard let index = pingWaiters.firstIndex(where: { $0.id == id }) else { continue }
            let waiter = pingWaiters.remove(at: index)
            if let roundTrip = outcome.answered {
                meter?.countRoundTrip(roundTrip)
                resume(waiter.completion, .success(roundTrip))
            } else if let status = outcome.connectionClosed {
                resume(waiter.completion, .failure(.closed(status)))
            } else {
                resume(waiter.completion, .failure(.timedOut(.ping)))
            }
        }
    }
}
