// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// A server's counters since it started, summed over its loops when read: connections, refusals,
/// handshake failures, closes, messages, bytes, pings. Render them for Prometheus with
/// ``prometheusText(prefix:)``.
public struct ServerMetrics: Sendable, Hashable {
    /// Why a connection that never opened ended.
    public enum Refusal: String, Sendable, Hashable, CaseIterable {
        /// Answered 503 while the server drained.
        case draining
        /// The server's decision rejected the opening handshake.
        case rejected
        /// The request was no valid opening handshake: the core answered 4xx or 505.
        case invalidRequest = "invalid_request"
        /// No request (or no decision) within the handshake timeout.
        case handshakeTimeout = "handshake_timeout"
        /// A PROXY protocol header was refused (from an untrusted peer, or malformed).
        case proxyHeader = "proxy_header"
        /// The peer left, or the transport (TLS) failed, before the handshake ended.
        case abandoned
    }

    /// A histogram of durations, in the buckets of ``bounds``.
    public struct Histogram: Sendable, Hashable {
        /// The upper bounds of the buckets, in seconds, ascending; a last bucket takes the rest.
        public static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
        /// Observations per bucket (not cumulative): one more element than ``bounds``, the last one
        /// over the greatest bound.
        public var buckets: [Int]
        /// Observations.
        public var count: Int
        /// Their sum, in nanoseconds.
        public var sumNanoseconds: Int

        /// No observation.
        public init() {
            buckets = Array(repeating: 0, count: Self.bounds.count + 1)
            count = 0
            sumNanoseconds = 0
        }
    }

    /// Connections accepted from the listening sockets.
    public var connectionsAccepted = 0
    /// Connections whose opening handshake completed.
    public var connectionsOpened = 0
    /// Connections open now (or closing): opened and not ended.
    public var connectionsOpen = 0
    /// Accepted connections that ended, opened or not.
    public var connectionsEnded = 0
    /// Connections that never opened, by why.
    public var refused: [Refusal: Int] = [:]
    /// Opening handshakes answered with an HTTP error, by status (the server's rejections, 503 while
    /// draining, 500 for an acceptance the connection refused, and the core's answers to invalid
    /// requests).
    public var handshakesFailed: [Int: Int] = [:]
    /// Plain HTTP requests answered (``WebSocketCore/Connection/Configuration/answersPlainRequests``), by status.
    public var plainRequests: [Int: Int] = [:]
    /// Close frames sent, by code (1005 for an empty one; code 0 counts codes outside 1000-1015 and
    /// 3000-4999).
    public var closesSent: [UInt16: Int] = [:]
    /// Close frames received, by code, as ``closesSent``.
    public var closesReceived: [UInt16: Int] = [:]
    /// Messages read from the peers (text and binary; each piece of a message delivered in pieces).
    public var messagesReceived = 0
    /// Messages queued to the peers (text, binary, prepared; each fragment sent by hand).
    public var messagesSent = 0
    /// Bytes read from the sockets (frames and HTTP, encrypted under TLS).
    public var bytesReceived = 0
    /// Bytes written to the sockets.
    public var bytesSent = 0
    /// Pings sent awaiting their pongs (``WebSocketTransport`` adapters' `sendPing` with a pong
    /// handler or an `await`); the keepalive's own pings are not counted.
    public var pingsSent = 0
    /// The round trips of those pings answered.
    public var pingRoundTrips = Histogram()
    /// Connections closed because the peer did not keep up: output stalled past
    /// ``TransportOptions/writeTimeout``, or a topic's subscriber closed with 1013 at its limit.
    public var droppedForBackpressure = 0

    /// All zero.
    public init() {}
}
