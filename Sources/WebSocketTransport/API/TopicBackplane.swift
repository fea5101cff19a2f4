// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A message bus that joins the topics of several servers, so that they act as one: what one server
/// publishes reaches the subscribers of every server attached to the same bus (Redis, with
/// `WebSocketRedis.RedisBackplane`; NATS or any other bus by conforming to this).
///
/// A server that has one attached (`WebSocketServer.attach(_:)`):
/// - hands it every message published on the server (`WebSocketServer.publish(topic:text:)` and
///   the others), after delivering the message to its own subscribers;
/// - tells it which topics have subscribers on this server (``subscribe(_:)`` when a topic gets its
///   first, ``unsubscribe(_:)`` when it loses its last), so that the bus brings only those;
/// - delivers what the bus brings to its own subscribers only, never back to the bus.
///
/// The bus must not bring a server its own messages back (it delivered them already): a
/// conformance tells its messages apart from the others' (an identity per server in each message,
/// say). Every call may come from any thread; each must return soon (queue the work).
public protocol TopicBackplane: AnyObject, Sendable {
    /// Starts carrying messages: `deliver` hands one that another server published to this server's
    /// subscribers of its topic. Called once, when the server attaches the bus, before any other call.
    func start(delivering deliver: @escaping @Sendable (BackplaneMessage) -> Void)
    /// `topic` has subscribers on this server now: bring its messages.
    func subscribe(_ topic: String)
    /// `topic` has no subscriber left on this server: its messages are no longer wanted here.
    func unsubscribe(_ topic: String)
    /// A message published on this server, for the others.
    func publish(_ message: BackplaneMessage)
    /// The server stopped: no call comes after this one.
    func stop()
}

/// A message published to a topic, as it crosses a ``TopicBackplane``: its topic, whether it is
/// text or binary, and its payload (a text message's UTF-8).
public struct BackplaneMessage: Sendable, Hashable {
    /// The topic it was published to.
    public var topic: String
    /// Text or binary.
    public var kind: Connection.MessageKind
    /// The payload: a text message's UTF-8, a binary message's bytes.
    public var payload: [UInt8]

    /// A message.
    public init(topic: String, kind: Connection.MessageKind, payload: [UInt8]) {
        self.topic = topic
        self.kind = kind
        self.payload = payload
    }
}
