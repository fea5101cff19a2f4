// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// One connection's TLS session: a ``WebSocketTransport/TransportLayer`` that takes ciphertext from the socket and
/// gives plaintext to the layer above, and takes the layer above's bytes and gives ciphertext for
/// the socket. Made by a ``TLSContext``. It owns no socket and no thread, so it runs over anything
/// that moves bytes, and two sessions talk to each other in memory.
///
/// ```swift
/// var session = try context.makeClientSession(serverName: "example.com")
/// session.withPendingOutput { bytes in socket.write(bytes) }    // the ClientHello
/// session.receive(bytesFromSocket)
/// let count = session.read(into: buffer)       // plaintext; read until it returns 0
/// ```
///
/// docs/guide-tls.md has the whole loop.
///
/// - ``status``: ``WebSocketTransport/TransportLayerStatus/establishing`` during the handshake (bytes sent meanwhile
///   wait, up to ``TLSLimits/maxBufferedPlaintext``); ``WebSocketTransport/TransportLayerStatus/established``;
///   ``WebSocketTransport/TransportLayerStatus/ended(clean:)`` once the peer's close_notify was read (`clean: true`) or
///   the stream ended without one after the handshake (`clean: false`: a truncation, which an
///   attacker can cause); ``WebSocketTransport/TransportLayerStatus/failed(_:)`` with ``WebSocketTransport/WebSocketError/tls(_:)``.
/// - ``finishSending()`` sends close_notify, once, after everything sent before it.
///
/// A session is used by one thread at a time, and it is a reference: a copy of a `TLSSession` is the
/// same session (TLS state cannot be duplicated).
public struct TLSSession: TransportLayer {
    let engine: SessionEngine

    init(engine: SessionEngine) {
        self.engine = engine
    }

    /// Where the session is: the TLS handshake, established, closed (`clean` after the peer's
    /// close_notify, not after a truncation), or failed with a ``TLSError``.
    public var status: TransportLayerStatus { engine.status }

    /// Takes TLS records that arrived from the socket (ciphertext); the handshake moves on and
    /// plaintext becomes readable.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) { engine.receive(bytes) }

    /// The socket's stream ended. Without the peer's close_notify before it, that is a truncation
    /// (RFC 8446 §6.1) and the status says so.
    public mutating func receiveEOF() { engine.receiveEOF() }

    /// Moves up to `buffer.count` bytes of decrypted plaintext into `buffer`; returns how many (0
    /// when there are none now).
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int { engine.read(into: buffer) }

    /// Takes plaintext to encrypt for the peer; before the handshake ends it waits in the session.
    public mutating func send(_ bytes: UnsafeRawBufferPointer) { engine.send(bytes) }

    /// Sends close_notify after what was sent before (RFC 8446 §6.1).
    public mutating func finishSending() { engine.finishSending() }

    /// The number of ciphertext bytes waiting to go to the socket.
    public var pendingOutputCount: Int { engine.pendingOutputCount }

    /// Lends the ciphertext waiting for the socket to `write`, which returns how many bytes it wrote
    /// (a partial write is fine); those are removed.
    public mutating func withPendingOutput(_ write: (UnsafeRawBufferPointer) -> Int) { engine.withPendingOutput(write) }

    /// The protocol ALPN agreed on (`"http/1.1"`), once established; `nil` when the peer sent or
    /// selected none.
    public var negotiatedApplicationProtocol: String? { engine.negotiatedApplicationProtocol }

    /// The version agreed on, once established.
    public var negotiatedVersion: TLSVersion? { engine.negotiatedVersion }

    /// The subject of the peer's verified certificate (RFC 2253, e.g. `CN=alice,O=Example`), once
    /// established: for a server with ``ClientCertificatePolicy/optional(trustRoots:)`` or
    /// ``ClientCertificatePolicy/required(trustRoots:)``, who the client is; for a verifying client,
    /// the server. `nil` when the peer sent no certificate or it was not verified. A certificate
    /// accepted by a ``TLSTrustEvaluator`` overriding a failed verification counts, and
    /// ``trustOverride`` says so.
    public var peerCertificateSubject: String? { engine.peerCertificateSubject }

    /// The verification failure that the configuration's ``TLSTrustEvaluator`` overrode to accept the
    /// peer (``TLSTrustDecision/acceptOverridingFailure(reason:)``), and its reason, once
    /// established; `nil` when the peer's chain passed verification (or was not verified). Log it:
    /// this connection is trusted by your decision, not by the verification.
    public var trustOverride: TLSTrustOverride? { engine.acceptedTrustOverride }

    /// (Server) The host name the client asked for (SNI, RFC 6066 §3), once its ClientHello was read;
    /// `nil` when it sent none (as when it connected to an IP address).
    public var requestedServerName: String? { engine.requestedServerName }

    /// Whether the handshake resumed an earlier session (a client's ``TLSConfiguration/sessionCache``,
    /// a server's ``TLSConfiguration/sessionTickets``), once established: no certificate was sent
    /// or verified, the peer proved it holds the earlier session's secret. ``peerCertificateSubject``
    /// is the earlier session's peer's; ``trustOverride`` is always `nil` (a session accepted by an
    /// override is never resumed).
    public var isResumed: Bool { engine.isResumed }

    /// Received bytes not yet decrypted (for memory checks in tests and fuzzing).
    @_spi(Testing) public var bufferedCiphertextCount: Int { engine.bufferedCiphertextCount }

    /// Bytes sent before the handshake completed, waiting for it.
    @_spi(Testing) public var bufferedPlaintextCount: Int { engine.bufferedPlaintextCount }
}
