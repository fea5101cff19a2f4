// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// An immutable value on the heap, one pointer wide: for a large payload that is read rarely. Never
/// mutated, so sharing it between copies of a connection is the same as copying it.
@usableFromInline
final class Boxed<Value: Sendable>: Sendable {
    @usableFromInline let value: Value
    init(_ value: Value) { self.value = value }
}
