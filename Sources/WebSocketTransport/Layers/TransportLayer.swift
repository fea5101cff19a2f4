// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A layer of a connection's byte stream, between the socket (below) and the WebSocket
/// ``WebSocketCore/Connection`` (above): a TLS session, a proxy tunnel's handshake.
///
/// A layer is sans-I/O, like the connection: it owns no socket, thread or clock. The adapters feed it
/// the bytes they read and write out the bytes it gives, so that a layer is tested without a socket
/// (two layers wired back to back, at any split of the byte stream) and fuzzed, and so that adding a
/// layer under both adapters changes neither adapter:
///
/// ```
/// socket ──receive──► layer ──read(into:)──► … ──► Connection
/// socket ◄──withPendingOutput── layer ◄──send── … ◄── Connection
/// ```
///
/// The contract:
///
/// 1. ``receive(_:)`` and ``receiveEOF()`` never fail: a peer's bad bytes become ``status``
///    ``TransportLayerStatus/failed(_:)``, after which the layer reads nothing more (its pending
///    output may hold a last word for the peer, such as a TLS alert).
/// 2. ``send(_:)`` takes any bytes at any time: a layer still in its own handshake
///    (``TransportLayerStatus/establishing``) keeps them and sends them once it can.
/// 3. Memory is bounded by the layer's own limits: what it buffers beyond one read's worth of input
///    and the bytes sent to it but not yet taken is checked before it is spent, and a peer that
///    exceeds it fails the layer.
/// 4. Nothing happens between calls: after each call the caller reads what the layer decoded
///    (``read(into:)`` until it returns 0) and writes what it wants to send.
///
/// The `WebSocketTLS` module's sessions are layers; so is anything you write against this protocol.
public protocol TransportLayer: Sendable {
    /// Where the layer is.
    var status: TransportLayerStatus { get }

    /// Takes bytes that arrived from below.
    mutating func receive(_ bytes: UnsafeRawBufferPointer)

    /// The stream below ended: no more bytes will arrive.
    mutating func receiveEOF()

    /// Moves up to `buffer.count` bytes decoded for the layer above into `buffer`; returns how many
    /// (0 when there are none now).
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int

    /// Takes bytes from the layer above, to carry to the peer.
    mutating func send(_ bytes: UnsafeRawBufferPointer)

    /// The layer above has sent everything: ends the stream toward the peer in the layer's own terms
    /// (a TLS close_notify). Bytes sent before are still delivered first.
    mutating func finishSending()

    /// The number of bytes waiting to go below.
    var pendingOutputCount: Int { get }

    /// Lends the bytes waiting to go below to `write`, which returns how many of them it wrote (a
    /// partial write is fine); those are removed.
    mutating func withPendingOutput(_ write: (UnsafeRawBufferPointer) -> Int)
}

/// Where a ``TransportLayer`` is.
public enum TransportLayerStatus: Sendable, Hashable {
    /// The layer's own handshake is under way (the TLS handshake, the proxy's answer): bytes from
    /// above wait in the layer.
    case establishing
    /// Bytes flow both ways.
    case established
    /// No more bytes will come up from this layer. `clean` says whether the peer ended the stream in
    /// the layer's own terms (a TLS close_notify) rather than by cutting the stream below it (a
    /// truncation). Bytes already decoded can still be read.
    case ended(clean: Bool)
    /// The layer failed: a certificate the client does not trust, a peer that does not speak TLS, a
    /// proxy's refusal. Nothing more comes up; the error says why.
    case failed(WebSocketError)
}

/// Makes the TLS layers of connections: the `WebSocketTLS` module's `TLSContext` is one. Set one as
/// ``TransportOptions/tls`` to connect to `wss://` URLs, or to serve `wss://`.
///
/// The adapters and the core never link a TLS library themselves: a program that never sets a
/// factory never loads one.
public protocol TLSLayerFactory: Sendable {
    /// A client session that verifies the server as `serverName` (a DNS name, sent as SNI, or an IP
    /// address), as the factory's configuration says.
    ///
    /// - Throws: ``WebSocketError/tls(_:)`` when the factory cannot make client sessions (it holds a
    ///   server configuration) or the session cannot be created.
    func makeClientLayer(serverName: String) throws(WebSocketError) -> any TransportLayer

    /// A server session, with the factory's certificate and key.
    ///
    /// - Throws: ``WebSocketError/tls(_:)`` when the factory has no certificate to serve.
    func makeServerLayer() throws(WebSocketError) -> any TransportLayer
}
