// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A first-in, first-out queue: appends at the end, removals from the front, each O(1) amortised
/// (the front's dead space is reclaimed once it is half the storage, not on every removal).
struct RingBuffer<Element>: Sendable where Element: Sendable {
    private var storage: [Element] = []
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element) { storage.append(element) }

    mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.count <= 64)
            head = 0
        } else if head >= 64 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    mutating func removeAll() {
        storage.removeAll()
        head = 0
    }
}

extension RingBuffer where Element: Equatable {
    func count(of element: Element) -> Int {
        storage[head...].reduce(0) { $0 + ($1 == element ? 1 : 0) }
    }
}
