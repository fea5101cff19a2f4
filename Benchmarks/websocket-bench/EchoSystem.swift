// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Synchronization

/// One side of an echo comparison: an echo server running in this process, and the clients that
/// do round trips against it over 127.0.0.1. A round trip sends one message and waits for its echo.
protocol EchoSystem: Sendable {
    associatedtype Client: Sendable

    /// Opens one client connection (a client is used by one thread at a time).
    func connect() -> Client
    /// Sends one message and waits for its echo.
    func roundTrip(_ client: Client)
    /// Closes one client connection.
    func close(_ client: Client)
    /// Stops the server and waits for its threads; call after closing every client.
    func stop()
}

/// A flag one thread raises for others to see.
final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    var isRaised: Bool { raised.load(ordering: .relaxed) }
    func raise() { raised.store(true, ordering: .relaxed) }
}

/// What the client threads of a many-connection run share with the thread that measures them.
final class EchoProgress: Sendable {
    let stopping = StopFlag()
    private let count = Atomic<Int>(0)

    var roundTrips: Int { count.load(ordering: .relaxed) }

    func countRoundTrip() { count.add(1, ordering: .relaxed) }
}
