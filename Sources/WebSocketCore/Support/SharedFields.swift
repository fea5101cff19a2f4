// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A value type's fields kept in one shared box, copied on write: the storage of the values that
/// carry many fields and are copied often on a connection's way (a handshake's request and result,
/// a close status). A copy retains one reference instead of every string and array in the fields,
/// and the value is one pointer wide, so the enums that carry it need no box of their own.
///
/// Invariant: the box is never mutated; a change makes a box of this value's own.
struct SharedFields<Fields: Sendable & Hashable>: Sendable, Hashable {
    private var box: Boxed<Fields>

    init(_ fields: Fields) { box = Boxed(fields) }

    /// The fields, read.
    var fields: Fields { box.value }

    /// Changes the fields in a box of this value's own.
    mutating func change(_ body: (inout Fields) -> Void) {
        var fields = box.value
        body(&fields)
        box = Boxed(fields)
    }

    /// Equal when the fields are, whether or not the two share a box.
    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.box === rhs.box || lhs.box.value == rhs.box.value
    }

    /// Hashes the fields.
    func hash(into hasher: inout Hasher) {
        hasher.combine(box.value)
    }
}
