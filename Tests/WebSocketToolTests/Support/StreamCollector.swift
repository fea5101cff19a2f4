// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore
import WebSocketTransport

/// The monotonic clock, for the tests' deadlines.
func elapsedClock() -> Connection.Instant { SystemCalls.live.monotonicNow() }

/// The failure bound of every wait on the tool: generous, because the machine is shared and may be
/// loaded (two busy loops beside the suite must not make it fail). A wait that passes returns as
/// soon as its condition holds; only a broken tool waits this long.
let generousTimeout: Duration = .seconds(30)

/// Everything one descriptor (a pipe's read end, a pseudo-terminal's master) yielded, read by its
/// own thread until end of file, so that the tool never blocks on a full pipe and tests can wait
/// for text to appear instead of sleeping.
final class StreamCollector: Sendable {
    private struct State: Sendable {
        var bytes: [UInt8] = []
        var ended = false
    }
    private let state = Locked(State())

    /// Starts reading `descriptor` on a new thread; the collector closes it at end of file (or, for a
    /// pseudo-terminal master, at EIO, which is how Linux says every slave is closed).
    /// - Parameter activity: bumped (and broadcast) after each read and at the end, for waits on
    ///   several streams at once (``ToolProcess/waitForOutputOrStderr(timeout:until:)``).
    init(reading descriptor: Int32, activity: Locked<Int>? = nil) throws {
        let state = self.state
        try spawnDetachedThread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                state.withLock { $0.bytes += buffer[0..<count] }
                state.broadcast()
                activity?.withLock { $0 += 1 }
                activity?.broadcast()
            }
            close(descriptor)
            state.withLock { $0.ended = true }
            state.broadcast()
            activity?.withLock { $0 += 1 }
            activity?.broadcast()
        }
    }

    /// The bytes read so far.
    var bytes: [UInt8] { state.withLock { $0.bytes } }

    /// The bytes read so far, as text (invalid UTF-8 repaired: for messages and assertions only).
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The lines read so far, without their "\n" (and "\r", on a terminal); a last line without a
    /// newline is included.
    var lines: [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        }
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Whether the descriptor reached its end (the writer closed it: the tool exited, usually).
    var hasEnded: Bool { state.withLock { $0.ended } }

    /// Waits until `condition` holds for the text read so far, or `timeout` passes, or the stream
    /// ends without it holding. Returns whether it held.
    func wait(timeout: Duration = generousTimeout, until condition: (String) -> Bool) -> Bool {
        var held = false
        _ = state.wait(until: { state in
            held = condition(String(decoding: state.bytes, as: UTF8.self))
            return held || state.ended
        }, deadline: elapsedClock() + timeout, now: elapsedClock)
        return held
    }

    /// Waits until the stream ends (the writer closed it); whether it did within `timeout`.
    func waitForEnd(timeout: Duration = generousTimeout) -> Bool {
        state.wait(until: { $0.ended }, deadline: elapsedClock() + timeout, now: elapsedClock)
    }
}

/// At most the first `count` lines of `text`, for failure messages that stay readable when the
/// tool printed its whole usage text.
func excerpt(_ text: String, lines count: Int = 12) -> String {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.count > count else { return text }
    return lines.prefix(count).joined(separator: "\n") + "\n[… \(lines.count - count) more lines]"
}
