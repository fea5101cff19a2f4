// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Where a connection is in its lifecycle, with the state that exists only in that phase: each timer
/// lives in the payload of the phase that arms it, so that leaving the phase stops it, and nothing
/// outside the enum can disagree with it.
///
/// Two buffers of the handshake phases live in stored properties of the connection instead (the HTTP
/// head parser and a refusal's body reader), so that they mutate in place rather than being copied
/// out of the payload and back, which would copy their buffers on every call. They are plain values,
/// never absent: the phase says which one is in use, and the transitions that start and end that
/// phase reset it.
///
/// The two large payloads (the client's offer, the request awaiting a decision) are boxed once, when
/// their phase starts: they are read rarely, and inline they made the enum too large for the compiler
/// to test its case in place (it called a function instead). Small, the case is tested with one
/// comparison where the reader asks, on every event, whether it reads frames.
enum Phase: Sendable {
    /// (Client) The request is out and `headReading` reads the response head. The key and the options
    /// offered are what the response is checked against.
    case clientAwaitingResponse(key: String, offered: Boxed<Connection.ClientOptions>, timeout: Timer)
    /// (Client) The server refused the upgrade; `bodyReader` reads its response's body for the report.
    case clientReadingRejection(Connection.HTTPResponseHead, timeout: Timer)
    /// (Server) `headReading` reads the request head.
    case serverAwaitingRequest(timeout: Timer)
    /// (Server) A valid request waits for `accept` or `reject`.
    case serverAwaitingDecision(Connection.HandshakeRequest, timeout: Timer)
    case open(Keepalive)
    /// We sent this Close frame and wait for the peer's.
    case closingLocally(sent: Connection.CloseFrame, timeout: Timer)
    /// The peer sent this Close frame; our reply waits for the end of the message we are sending.
    case closingRemotely(received: Connection.CloseFrame, timeout: Timer)
    case closed(Connection.CloseStatus, transport: TransportDisposition)
}

/// The keepalive state of an open connection (RFC 6455 §5.5.2).
struct Keepalive: Sendable, Hashable {
    /// When the next ping is due: off while a pong is awaited, and without keepalive.
    var ping: Timer
    /// When the connection fails for want of a pong to the last ping.
    var pong = Timer.off
    /// The payload of the last ping sent, a counter.
    var count: UInt64 = 0
}

/// What the caller should do with the transport once the connection is closed.
enum TransportDisposition: Sendable, Hashable {
    /// Close it (after writing what is pending, if the transport takes it without waiting).
    case closeNow
    /// (Client) Wait for the server to close it (RFC 6455 §7.1.1), until the close timer runs out.
    case awaitPeerClose(until: Timer)
    /// Write what is pending, shut down the sending side, and read until the peer closes, until the
    /// linger timer runs out.
    case drain(until: Timer)
}

/// What happened, as the transition sees it. An input names an event, never the phase to enter:
/// which phase follows, and what else changes, is decided in one place, ``Connection/transition(_:)``.
enum PhaseInput {
    // The opening handshake.
    /// (Server) A valid opening handshake request was read.
    case requestRead(Connection.HandshakeRequest)
    /// (Client) A final response other than 101 was read; its body follows.
    case refusalRead(Connection.HTTPResponseHead)
    /// (Client) The refusal's body was read to its end.
    case refusalBodyRead
    /// (Client) A valid 101 was read; (server) `accept` queued the 101. `transform` is what the
    /// configured extensions negotiated.
    case handshakeCompleted(Connection.HandshakeResult, transform: Connection.Transform?)
    /// The handshake took place outside this connection, which starts open.
    case openedExternally(transform: Connection.Transform? = nil)
    /// An invalid request (its HTTP error response already queued) or response. Boxed (`indirect`):
    /// a failure is 216 bytes, and in line it made every input that size, so that the transition's
    /// switch copied 216 bytes with `memcpy` at each case it tried (about 400 instructions per
    /// opening handshake), for an input that comes once, if ever.
    indirect case handshakeFailed(Connection.HandshakeFailure)
    /// (Server) `reject` queued its response.
    case handshakeRejected

    // What the peer sent.
    case closeReceived(Connection.CloseFrame)
    case pongReceived
    /// The peer broke the protocol (RFC 6455 §7.1.7).
    case violation(Connection.ProtocolViolation)
    /// The reader reached the end of the input: every byte received before the transport ended has
    /// been read.
    case endOfStream

    // What the caller did (after ``Connection/checkPermission(_:)``).
    /// `close`: this frame is to go out.
    case closeCalled(Connection.CloseFrame)
    /// The last fragment of our message went out.
    case messageSent
    /// The transport's input ended (`receiveEOF`). Bytes received before it may still wait to be
    /// read; the reader reports `endOfStream` when it gets there.
    case inputEnded
    case aborted

    // Time.
    case timeAdvanced(to: Connection.Instant)
}

/// What a caller asks to do, for ``Connection/checkPermission(_:)``.
enum LocalAction {
    /// A whole message (a prepared one too), or the first fragment of one.
    case startMessage
    /// A later fragment of the message being sent.
    case continueMessage
    /// A ping or a pong.
    case sendControl
    case close
}
