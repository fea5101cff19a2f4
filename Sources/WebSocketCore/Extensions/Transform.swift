// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// A negotiated extension's transform (a ``MessageTransform``), as a ``WebSocketExtension``
    /// returns it and the connection holds it. A value: a copy of the connection forks its transform
    /// (the compressor's state, say) as a copy of the transform itself would, since the box is copied
    /// before a shared one is used. A box instead of `any MessageTransform`, so that the core builds in
    /// Embedded Swift, which has no such existentials.
    public struct Transform: Sendable {
        /// The transform's ``MessageTransform/reservedBits``.
        public let reservedBits: UInt8
        private var box: TransformBox

        /// `transform`, boxed.
        public init(_ transform: some MessageTransform) {
            reservedBits = transform.reservedBits
            box = TransformBox.make(transform)
        }

        /// ``MessageTransform/decode(_:isFinal:output:)`` of the transform.
        mutating func decode(_ input: UnsafeRawBufferPointer, isFinal: Bool,
                             output: (UnsafeRawBufferPointer) -> Bool) -> Connection.TransformResult {
            makeUnique()
            return box.decode(input, isFinal, output)
        }

        /// ``MessageTransform/shouldEncode(messageOfSize:)`` of the transform.
        func shouldEncode(messageOfSize size: Int?) -> Bool {
            box.shouldEncode(size)
        }

        /// ``MessageTransform/encode(_:isFinal:)`` of the transform.
        mutating func encode(_ input: UnsafeRawBufferPointer, isFinal: Bool) -> [UInt8] {
            makeUnique()
            return box.encode(input, isFinal)
        }

        private mutating func makeUnique() {
            if !isKnownUniquelyReferenced(&box) { box = box.copy() }
        }
    }
}

/// A transform behind closures that share it. `@unchecked Sendable`: a box is mutated only through
/// its unique owner (`Connection.Transform` copies a shared one first), so no two threads touch the
/// transform at once.
final class TransformBox: @unchecked Sendable {
    let decode: (UnsafeRawBufferPointer, Bool, (UnsafeRawBufferPointer) -> Bool) -> Connection.TransformResult
    let shouldEncode: (Int?) -> Bool
    let encode: (UnsafeRawBufferPointer, Bool) -> [UInt8]
    let copy: () -> TransformBox

    private init(decode: @escaping (UnsafeRawBufferPointer, Bool, (UnsafeRawBufferPointer) -> Bool) -> Connection.TransformResult,
                 shouldEncode: @escaping (Int?) -> Bool, encode: @escaping (UnsafeRawBufferPointer, Bool) -> [UInt8],
                 copy: @escaping () -> TransformBox) {
        self.decode = decode
        self.shouldEncode = shouldEncode
        self.encode = encode
        self.copy = copy
    }

    static func make<T: MessageTransform>(_ transform: T) -> TransformBox {
        var transform = transform
        return TransformBox(
            decode: { input, isFinal, output in transform.decode(input, isFinal: isFinal, output: output) },
            shouldEncode: { transform.shouldEncode(messageOfSize: $0) },
            encode: { transform.encode($0, isFinal: $1) },
            copy: { make(transform) })
    }
}
