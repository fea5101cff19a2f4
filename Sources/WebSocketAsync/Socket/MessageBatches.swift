// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// The messages of an async-face socket on their way from its loop to the task reading them,
/// crossing in batches: the loop stages what one read parsed and publishes it at once; a waiting
/// reader is resumed once per batch, and takes the whole batch at once (``WebSocket/messages``) or
/// one message (``WebSocket/receive(timeout:)``).
///
/// Confined to the loop: every member is touched on the loop's thread only, so no lock is taken.
/// A reader on the loop (a task that prefers the loop as its executor, as ``WebSocketServer/run(_:)``
/// starts them) takes directly; a reader elsewhere hops to the loop for each take that finds
/// nothing ready, as it would wait for a wake-up anyway. `@exclusivity(unchecked)` for the reason
/// and under the rule given at ``WebSocket``.
///
/// The continuations are unsafe ones (no checking box allocated per wait): each is stored in one
/// place, on the loop, and whoever takes it out resumes it, once.
final class MessageBatches: @unchecked Sendable {
    enum Take {
        /// The only message ready (or the first, for a take of one): no array crosses to the reader.
        case message(WebSocketMessage)
        /// Every message ready, two or more.
        case messages([WebSocketMessage])
        /// The end: `nil` after a clean close, the error otherwise.
        case end(WebSocketError?)
        /// The waiting task was cancelled; the connection and its messages are untouched.
        case cancelled
        /// The wait's own timeout passed first.
        case timedOut
    }

    /// Names one wait, so that a cancellation or timeout that arrives late (after the wait was
    /// answered, or during a later one) resumes nothing.
    final class Wait: Sendable {
        let wantsAll: Bool
        init(wantsAll: Bool) { self.wantsAll = wantsAll }
    }

    private let loop: EventLoop
    private weak var socket: WebSocket?
    /// Published, not yet taken, from `head`.
    @exclusivity(unchecked) private var messages: [WebSocketMessage] = []
    @exclusivity(unchecked) private var head = 0
    /// Parsed in this read, not yet published.
    @exclusivity(unchecked) private var staged: [WebSocketMessage] = []
    /// The payload bytes of `staged`, and of the published messages not yet taken (what a take of
    /// all reports as taken, without walking the batch).
    @exclusivity(unchecked) private var stagedBytes = 0
    @exclusivity(unchecked) private var unreadBytes = 0
    /// Empty room for the next batch: the array a reader handed back (``take(all:timeout:recycling:)``).
    @exclusivity(unchecked) private var spare: [WebSocketMessage] = []
    /// Set once: `nil` inside for a clean end.
    @exclusivity(unchecked) private var end: WebSocketError?? = nil
    @exclusivity(unchecked) private var waiter: (wait: Wait, continuation: UnsafeContinuation<Take, Never>)? = nil
    /// Follows the cancellation of the task that ``WebSocketServer/run(_:)`` started for this
    /// socket, for its whole life (`nil` for other sockets).
    @exclusivity(unchecked) var watch: TaskCancellationWatch? = nil
    /// A wait whose cancellation reached the loop before the wait itself.
    @exclusivity(unchecked) private var cancelledBeforeWaiting: Wait? = nil

    /// (On the loop) The messages the array holds, taken or not (for tests).
    var storedCount: Int { messages.count }
    /// (On the loop) Whether a reader waits (for tests).
    var hasWaiter: Bool { waiter != nil }

    init(socket: WebSocket) {
        self.loop = socket.loop
        self.socket = socket
    }

    // MARK: The loop's side

    func stage(_ message: consuming WebSocketMessage) {
        stagedBytes += message.payloadSize
        staged.append(consume message)
    }

    /// Hands the staged messages over, resuming a waiting reader.
    func publish() {
        guard !staged.isEmpty else { return }
        if head == messages.count {
            // The arrays trade places: the one emptied (by a take of all, from the reader's spare)
            // stages the next messages, with no allocation in steady state.
            swap(&messages, &staged)
            staged.removeAll(keepingCapacityUpTo: WebSocket.keptCapacity)
            head = 0
        } else {
            messages.append(contentsOf: staged)
            staged.removeAll(keepingCapacityUpTo: WebSocket.keptCapacity)
        }
        unreadBytes += stagedBytes
        stagedBytes = 0
        // The waiter is moved out, not copied (a copy cost a retain and a release of its name).
        if let wantsAll = waiter?.wait.wantsAll, let ready = takeIfReady(wantsAll: wantsAll), let waiter = waiter.take() {
            waiter.continuation.resume(returning: ready)
        }
    }

    /// The connection ended: a waiting reader gets the end once the messages are taken.
    func finish(_ error: WebSocketError?) {
        publish()
        end = .some(error)
        guard head == messages.count, let waiter else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: .end(error))
    }

    // MARK: The reader's side

    /// Every message published (or the first, unless `all`), or the end; waits while there is
    /// neither, at most `timeout`. It runs on its caller's executor (`nonisolated(nonsending)`), so
    /// that a reader on the loop takes without a switch.
    ///
    /// Cancelling the waiting task answers ``Take/cancelled`` at once (a task already cancelled
    /// gets it when nothing is ready); no message is lost, the next take gets it.
    ///
    /// `recycling` is an empty array the reader is done with (its last batch): on the loop, it
    /// becomes the room of a later batch, so that a reader that takes every batch costs no
    /// allocation for them.
    @inline(__always)
    nonisolated(nonsending) func take(all: Bool, timeout: Duration? = nil, recycling: consuming [WebSocketMessage] = []) async -> Take {
        if loop.inLoop {
            if spare.capacity == 0, recycling.isEmpty, recycling.capacity > 0, recycling.capacity <= WebSocket.keptCapacity {
                spare = recycling
            }
            if hasReady, let ready = takeIfReady(wantsAll: all) { return ready }
            if let watch, let cancelled = watch.currentTaskCancellation {
                if cancelled { return .cancelled }
                return await takeWatched(by: watch, all: all, timeout: timeout)
            }
        }
        let wait = Wait(wantsAll: all)
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Take, Never>) in
                if loop.inLoop {
                    takeOrWait(wait, continuation, timeout: timeout)
                } else {
                    loop.execute { [self] in takeOrWait(wait, continuation, timeout: timeout) }
                }
            }
        } onCancel: {
            loop.execute { [self] in end(wait, with: .cancelled) }
        }
    }

    /// (On the loop, nothing ready, the task watched and not cancelled) Waits in a task whose
    /// cancellation `watch` follows for the task's whole life: no cancellation handler is installed
    /// and removed for this one wait (two changes of the task's status records, each under the
    /// task's lock). The wait is named in the watch before the task suspends, on the loop, where the
    /// watch's cancellation also runs: a cancellation before this point was seen by the caller's
    /// look at the task, one after it finds the wait.
    private nonisolated(nonsending) func takeWatched(by watch: TaskCancellationWatch, all: Bool, timeout: Duration?) async -> Take {
        // A wait without a timeout may be named by an object the watch keeps: what tells its waits
        // apart is only a late cancellation, which finds the task cancelled whichever wait it
        // ends. A timed wait is named afresh, as a timeout that comes late must end nothing.
        let wait = timeout == nil ? (all ? watch.waitForAll : watch.waitForOne) : Wait(wantsAll: all)
        // Named again only when it changed: a reader of `messages` waits with the same name on
        // the same batches every time, and storing the pair anew cost two retains and releases.
        if watch.waiting?.batches !== self || watch.waiting?.wait !== wait { watch.waiting = (self, wait) }
        return await withUnsafeContinuation { (continuation: UnsafeContinuation<Take, Never>) in
            takeOrWait(wait, continuation, timeout: timeout)
        }
    }

    /// (On the loop) Resumes `continuation` with what is ready, or keeps it for the next batch.
    private func takeOrWait(_ wait: Wait, _ continuation: UnsafeContinuation<Take, Never>, timeout: Duration?) {
        if hasReady, let ready = takeIfReady(wantsAll: wait.wantsAll) {
            continuation.resume(returning: ready)
        } else if waiter != nil {
            continuation.resume(returning: .end(.invalidArgument("messages are read by another task")))
        } else if cancelledBeforeWaiting === wait {
            cancelledBeforeWaiting = nil
            continuation.resume(returning: .cancelled)
        } else {
            waiter = (wait, continuation)
            if let timeout, let socket {
                socket.receiveDeadline = (loop.now + timeout, wait)
                socket.markDirty()
            }
        }
    }

    /// (On the loop) The wait `wait` was cancelled or timed out: answers it if it is waiting, or
    /// remembers a cancellation whose wait has not reached the loop yet (a reader elsewhere,
    /// cancelled meanwhile: its two hops may arrive in either order).
    func end(_ wait: Wait, with outcome: Take) {
        guard let waiter, waiter.wait === wait else {
            if case .cancelled = outcome { cancelledBeforeWaiting = wait }
            return
        }
        self.waiter = nil
        waiter.continuation.resume(returning: outcome)
    }

    /// (On the loop) Whether ``takeIfReady(wantsAll:)`` would answer: tested inline, as a reader
    /// that waits for every message finds nothing twice per message, and the call cost about 40
    /// instructions each time.
    @inline(__always)
    private var hasReady: Bool { head < messages.count || end != nil }

    /// (On the loop) What is ready now, if anything; what is taken no longer counts as held.
    ///
    /// A lone message goes out alone (a reader of a ping-pong gets one per read): it leaves the
    /// array from its end, which keeps its storage in place for the next batch, and the reader gets
    /// no array to hold, hand back and empty.
    private func takeIfReady(wantsAll: Bool) -> Take? {
        guard head < messages.count else {
            if let end { return .end(end) }
            return nil
        }
        if messages.count &- head == 1 {
            let message = messages.removeLast()
            if head > 0 {
                messages.removeAll(keepingCapacityUpTo: WebSocket.keptCapacity)
                head = 0
            }
            took(message.payloadSize, messages: 1)
            return .message(message)
        }
        let taken: [WebSocketMessage]
        let bytes: Int
        if wantsAll {
            taken = head == 0 ? messages : Array(messages[head...])
            messages = spare
            spare = []
            head = 0
            bytes = unreadBytes
        } else {
            // Two or more are ready (one was answered above): the first goes, the array keeps
            // the rest.
            let message = messages[head]
            bytes = message.payloadSize
            head += 1
            if head >= 64, head * 2 >= messages.count {
                // A reader that stays behind never empties the array: what it took goes, so that
                // the array holds about what is unread, not everything since it last caught up.
                messages.removeFirst(head)
                head = 0
            }
            took(bytes, messages: 1)
            return .message(message)
        }
        took(bytes, messages: taken.count)
        return .messages(taken)
    }

    /// (On the loop) The reader took `messages` messages of `bytes` payload bytes: they are no
    /// longer unread, and no longer held against the socket's limits. Reading resumes in the loop's
    /// next turn, not from inside the take.
    @inline(__always)
    private func took(_ bytes: Int, messages: Int) {
        unreadBytes -= bytes
        socket?.consumerTook(bytes, messages: messages)
    }
}
