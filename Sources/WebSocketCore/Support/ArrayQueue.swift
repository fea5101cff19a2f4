// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Array {
    /// Takes the first element of a queue kept as `self[start...]` (the elements before `start`
    /// already taken), and moves `start` past it; once the queue is empty, the array is emptied
    /// and keeps its storage, and `start` is 0 again. The queue must not be empty.
    ///
    /// The last element is moved out, not copied: a queue of one (the usual case) costs no copy of
    /// its element and no pass that destroys the taken elements. Copying an event out and then
    /// emptying the array with `removeAll(keepingCapacity:)` cost about 800 instructions per event
    /// of an opening handshake (a request or a result: strings and arrays retained, then released
    /// by `replaceSubrange`'s generic destruction).
    ///
    /// Inlinable, so that the other modules' queues (a session's actions) get it specialized.
    @inlinable @inline(__always)
    package mutating func dequeue(advancing start: inout Int) -> Element {
        if start == count &- 1 {
            let last = removeLast()
            // The taken elements, destroyed one by one from the end: `removeAll(keepingCapacity:)`
            // went through `replaceSubrange`'s generic path, about 170 instructions for the one or
            // two events a closing handshake leaves.
            while start > 0 {
                removeLast()
                start &-= 1
            }
            return last
        }
        let element = self[start]
        start &+= 1
        return element
    }
}
