// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// A message framed once, to be sent by any number of server connections: a broadcast encodes the
    /// frames once and every connection shares the bytes.
    ///
    /// A server's frames are not masked (RFC 6455 §5.1), so a message's frames are the same bytes on every
    /// server connection. ``Connection/send(_:)`` appends them to a connection's output; when that output
    /// is empty, the connection adopts the prepared array itself (its storage is shared, copy-on-write),
    /// so that taking the output with ``Connection/takeOutput()`` hands the same storage to the socket:
    /// one encoding and no copy per connection.
    ///
    /// ```swift
    /// let update = PreparedMessage(text: #"{"price": 101.5}"#)
    /// for index in connections.indices {
    ///     try? connections[index].send(update)      // a client, or a closing connection, refuses it
    /// }
    /// ```
    ///
    /// The frames are plain: no reserved bit set, no extension applied. With permessage-deflate
    /// negotiated that is still valid (RFC 7692 §6: an endpoint may send a message uncompressed, with
    /// RSV1 clear), as for ``Connection/send(text:compress:)`` with `compress: false`; the compressor's
    /// context is not touched. Compressed bytes cannot be shared, since each connection's compression
    /// context differs.
    ///
    /// Only a server may send one: a client must mask every frame with a fresh key (RFC 6455 §5.3).
    public struct PreparedMessage: Sendable, Hashable {
        /// The kind of message.
        public let kind: Connection.MessageKind

        /// The frames as a server sends them: unmasked, reserved bits clear, split at the
        /// `fragmentationSize` given when it was made.
        public let wireBytes: [UInt8]

        /// The number of payload bytes (the UTF-8 of a text message).
        public let payloadCount: Int

        /// The most payload bytes any one of its frames holds (0 for an empty message):
        /// ``Connection/send(_:)`` compares it with the connection's ``Connection/Configuration/fragmentationSize``.
        public let largestFramePayload: Int

        /// Prepares a text message.
        ///
        /// - Parameters:
        ///   - text: the message.
        ///   - fragmentationSize: split the message into frames of at most this many payload bytes, as
        ///     ``Connection/Configuration/fragmentationSize`` does for a connection's own sends (pass the servers'
        ///     setting when they have one). Default `nil`: one frame.
        public init(text: String, fragmentationSize: Int? = nil) {
            var text = text
            self = text.withUTF8 { bytes in
                Connection.PreparedMessage(kind: .text, UnsafeRawBufferPointer(bytes), fragmentationSize: fragmentationSize)
            }
        }

        /// Prepares a binary message.
        ///
        /// - Parameters:
        ///   - binary: the message's bytes.
        ///   - fragmentationSize: as for ``init(text:fragmentationSize:)``.
        public init(binary: some Collection<UInt8>, fragmentationSize: Int? = nil) {
            let prepared = binary.withContiguousStorageIfAvailable { bytes in
                Connection.PreparedMessage(kind: .binary, UnsafeRawBufferPointer(bytes), fragmentationSize: fragmentationSize)
            }
            self = prepared ?? Array(binary).withUnsafeBytes { bytes in
                Connection.PreparedMessage(kind: .binary, bytes, fragmentationSize: fragmentationSize)
            }
        }

        private init(kind: Connection.MessageKind, _ payload: UnsafeRawBufferPointer, fragmentationSize: Int?) {
            let size = Connection.frameSize(fragmentationSize)
            let frames = payload.isEmpty ? 1 : (payload.count - 1) / size + 1
            var bytes: [UInt8] = []
            // Headers of at most 10 bytes (unmasked), and the payload: one allocation.
            bytes.reserveCapacity(payload.count + 10 * frames)
            Connection.forEachFrame(of: kind, payload, reservedBits: 0, size: size) { opcode, fin, reservedBits, piece in
                Connection.appendFrame(opcode, fin: fin, reservedBits: reservedBits, key: nil, payload: piece, to: &bytes)
            }
            self.kind = kind
            wireBytes = bytes
            payloadCount = payload.count
            largestFramePayload = min(payload.count, size)
        }
    }
}
