// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// What a TLS session may hold, so that its memory stays bounded whatever a peer sends. A peer that
/// exceeds a limit fails the session with ``WebSocketTransport/TLSError/Kind/limitExceeded``.
///
/// The defaults hold a handshake with a long certificate chain and the reads of the adapters (64 KiB
/// each by default); raise ``maxBufferedCiphertext`` if you read in larger pieces.
public struct TLSLimits: Sendable, Hashable {
    /// The most bytes a peer may send before the handshake completes. Default 256 KiB: real handshakes
    /// take a few KiB, a long chain some tens; a peer that keeps a handshake going with more (a
    /// flood of records or of fragments of one message) is cut off.
    public var maxHandshakeBytes = 256 << 10
    /// The most bytes of a peer's certificate chain (OpenSSL's `SSL_CTX_set_max_cert_list`). Default
    /// 100 KiB, OpenSSL's own; larger chains fail the handshake.
    public var maxCertificateChainBytes = 100 << 10
    /// The most received bytes not yet decrypted. Records are decrypted as the layer above reads
    /// them, so this bounds what arrives faster than it is read, and a single `receive` larger than
    /// it. Default 256 KiB; at least one maximal record (18,437 bytes) is used. A TLS record is at
    /// most 16 KiB of plaintext: a larger one is a protocol error (OpenSSL's `record_overflow`).
    public var maxBufferedCiphertext = 256 << 10
    /// The most bytes the layer above may send before the handshake completes (they are encrypted
    /// and sent once it does). Default 256 KiB.
    public var maxBufferedPlaintext = 256 << 10
    /// The most output (ciphertext, alerts, replies to the peer's messages) waiting to be taken when
    /// more input arrives: a peer that keeps sending but never reads what it makes us write is cut
    /// off. Default 1 MiB.
    public var maxPendingOutput = 1 << 20

    /// The defaults above.
    public init() {}

    /// The smallest buffer that holds one TLS record of the largest size (RFC 5246 §6.2.3: a 5-byte
    /// header and 2^14 + 2048 bytes of ciphertext).
    static let maxRecordSize = 5 + (1 << 14) + 2048

    /// The ciphertext limit actually used.
    @_spi(Testing) public var effectiveMaxBufferedCiphertext: Int { max(Self.maxRecordSize, maxBufferedCiphertext) }
}
