// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The cancellation of one task, followed by one handler for the task's whole life instead of one
/// per wait: ``WebSocketServer/run(_:)`` starts each connection's task under a watch, and the waits
/// of that task for the socket's messages name themselves in it (``MessageBatches``).
///
/// A cancellation handler per wait costs two changes of the task's status records, each under the
/// task's own lock, on every message the task waits for; a watch costs a comparison of task
/// identities.
///
/// Confined to the loop (the task runs there: its executor preference is the socket's loop), but
/// for `task`, which is constant, and the handler, which only queues work on the loop.
final class TaskCancellationWatch: @unchecked Sendable {
    /// The task watched (its identity, see ``currentTaskIdentity``); only its own waits name
    /// themselves here.
    private let task: UnsafeRawPointer
    private let loop: EventLoop
    /// The names of the task's waits without a timeout, kept rather than allocated per wait.
    let waitForAll = MessageBatches.Wait(wantsAll: true)
    let waitForOne = MessageBatches.Wait(wantsAll: false)
    /// (On the loop) The task's latest wait, answered or not.
    @exclusivity(unchecked) var waiting: (batches: MessageBatches, wait: MessageBatches.Wait)? = nil

    init(task: UnsafeRawPointer, loop: EventLoop) {
        self.task = task
        self.loop = loop
    }

    /// For the calling task: `nil` when it is not the one watched (another task reading the same
    /// socket installs a handler of its own for each wait), else whether it is cancelled. One look
    /// at the current task answers both (each look costs a retain and a release of the task).
    var currentTaskCancellation: Bool? {
        withUnsafeCurrentTask { current in
            guard let current, unsafeBitCast(current, to: UnsafeRawPointer.self) == task else { return nil }
            return current.isCancelled
        }
    }

    /// The address of the current task's object, `nil` outside a task. `UnsafeCurrentTask`'s own
    /// `==` goes through `Optional`'s generic equality here, which cost a few hundred instructions
    /// per wait; the address is what it compares. The address identifies the task only while it
    /// runs, which the watch outlives only by its last queued cancellation (a no-op then).
    static var currentTaskIdentity: UnsafeRawPointer? {
        withUnsafeCurrentTask { task in task.map { unsafeBitCast($0, to: UnsafeRawPointer.self) } }
    }

    /// (Any thread: the task's cancellation handler) Ends the task's wait on the loop, if it is still
    /// waiting when the loop gets there.
    func taskCancelled() {
        loop.execute { [self] in
            guard let (batches, wait) = waiting else { return }
            waiting = nil
            // A wait answered since is remembered as cancelled: the task is, for good, so its next
            // wait (which `Task.isCancelled` answers first anyway) is rightly cancelled too.
            batches.end(wait, with: .cancelled)
        }
    }
}

extension WebSocket {
    /// Runs `body`, the task serving this socket, with its cancellation followed by a
    /// ``TaskCancellationWatch``: its waits for messages install no handler of their own. Without a
    /// current task, on another thread than the loop, or for a socket of another face, `body` simply
    /// runs.
    nonisolated(nonsending) func servedByCurrentTask(_ body: nonisolated(nonsending) () async -> Void) async {
        guard loop.inLoop, let batches = asyncBatches, let task = TaskCancellationWatch.currentTaskIdentity else {
            await body()
            return
        }
        let watch = TaskCancellationWatch(task: task, loop: loop)
        batches.watch = watch
        await withTaskCancellationHandler {
            await body()
        } onCancel: {
            watch.taskCancelled()
        }
        // At once where the task resumed on the loop (its preference): the task's address may be a
        // new task's once it ends, and a new task's work queued from another thread runs before
        // the loop's own queue.
        if loop.inLoop {
            batches.watch = nil
        } else {
            loop.execute { batches.watch = nil }
        }
    }
}
