// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A value kept on the heap behind one reference, copied on write: for large state that most
/// values never set, which would otherwise take its full size inline in every one of them.
package struct OutOfLine<Value> {
    private final class Storage {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    private var storage: Storage

    package init(_ value: Value) {
        storage = Storage(value)
    }

    package var value: Value {
        get { storage.value }
        set {
            if isKnownUniquelyReferenced(&storage) {
                storage.value = newValue
            } else {
                storage = Storage(newValue)
            }
        }
    }
}

extension OutOfLine: @unchecked Sendable where Value: Sendable {}
