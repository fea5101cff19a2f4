// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// (A server) How long a connection may live, and how long it may stay silent, before the server
/// closes it with 1001 (going away). Both are off by default.
///
/// A maximum lifetime spreads load over the instances behind a load balancer: a long-lived
/// connection stays where it first landed, so without one, instances started later (a scale-out, a
/// rolling deploy) get only new clients. Each connection's lifetime is drawn between
/// `maxLifetime - lifetimeJitter` and `maxLifetime`, so that connections opened together (a
/// reconnect storm after a deploy) do not all end together again.
///
/// ```swift
/// var options = TransportOptions()
/// options.lifetimeLimits.maxLifetime = .seconds(3600)   // 54 to 60 minutes
/// options.lifetimeLimits.idleTimeout = .seconds(300)
/// ```
public struct LifetimeLimits: Sendable, Hashable {
    /// The longest a connection stays open, counted from its opening handshake; then the server
    /// starts the closing handshake with 1001 "connection lifetime reached". Default `nil`: no limit.
    public var maxLifetime: Duration? = nil
    /// How much shorter than ``maxLifetime`` a connection's lifetime may be, drawn at random per
    /// connection. Default `nil`: a tenth of ``maxLifetime``; `.zero` draws nothing.
    public var lifetimeJitter: Duration? = nil
    /// How long an open connection may receive nothing (no frame, nor any byte of one: a ping or a
    /// pong counts) before the server closes it with 1001 "idle timeout". Default `nil`: no limit.
    /// A server's own keepalive pings (``WebSocketCore/Connection/Timeouts/keepaliveInterval``)
    /// keep a connection whose peer answers them from idling.
    public var idleTimeout: Duration? = nil

    /// No limit.
    public init() {}

    /// The limits given.
    public init(maxLifetime: Duration? = nil, lifetimeJitter: Duration? = nil, idleTimeout: Duration? = nil) {
        self.maxLifetime = maxLifetime
        self.lifetimeJitter = lifetimeJitter
        self.idleTimeout = idleTimeout
    }

    /// Whether any limit is set.
    package var isEnabled: Bool { maxLifetime != nil || idleTimeout != nil }

    /// One connection's lifetime, for `sample`, a random number the caller draws (uniform over all
    /// of `UInt64`): ``maxLifetime`` less `sample / 2⁶⁴` of the jitter (at most ``maxLifetime``
    /// itself, at least nothing). The same sample gives the same lifetime: tests choose theirs.
    package func lifetime(sample: UInt64) -> Duration? {
        guard let maximum = maxLifetime else { return nil }
        guard maximum > .zero else { return .zero }
        let jitter = lifetimeJitter ?? maximum / 10
        guard jitter > .zero else { return maximum }
        let span = Self.nanoseconds(jitter < maximum ? jitter : maximum)
        // The high half of span × sample: a fraction of the span, in [0, span), without floating point.
        let offset = span.multipliedFullWidth(by: sample).high
        return maximum - .nanoseconds(Int64(clamping: offset))
    }

    /// A random sample for ``lifetime(sample:)``, drawn by a server for each connection it accepts
    /// (0, with no system call, when there is no jitter to draw).
    package var randomSample: UInt64 {
        guard let maximum = maxLifetime, (lifetimeJitter ?? maximum) > .zero else { return 0 }
        return UInt64.random(in: .min ... .max)
    }

    /// A positive duration's whole nanoseconds (saturating).
    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        Connection.Instant(sinceOrigin: duration).nanosecondsSinceOrigin
    }
}
