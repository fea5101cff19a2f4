// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file descriptor's bytes (standard input, a command's output) cut into the messages to send:
/// one per line (without its newline; a last line without one counts too), or all of it as one
/// message. Bytes, so that nothing is lost or replaced before the sender decides what they are.
struct LineReader {
    let descriptor: Int32
    /// Whether everything up to the end is one message.
    let whole: Bool
    private var buffer: [UInt8] = []
    /// Where the unread bytes start: lines are cut off the front by moving this, and the bytes
    /// before it are dropped only when more are read (one move per read, not one per line).
    private var start = 0
    /// Where the search for the next newline resumes: the bytes before it hold none.
    private var scanned = 0
    private var ended = false
    /// Lines handed out so far, for error messages.
    private(set) var lineNumber = 0

    init(descriptor: Int32 = 0, whole: Bool = false) {
        self.descriptor = descriptor
        self.whole = whole
    }

    /// The next message's bytes, or `nil` at the end of input.
    mutating func next() -> [UInt8]? {
        while true {
            if !whole, let newline = buffer[max(start, scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                scanned = start
                lineNumber += 1
                return line
            }
            scanned = buffer.count
            if ended {
                guard start < buffer.count else { return nil }
                defer {
                    buffer = []
                    start = 0
                    scanned = 0
                }
                lineNumber += 1
                return Array(buffer[start...])
            }
            readMore()
        }
    }

    private mutating func readMore() {
        if start > 0 {
            buffer.removeSubrange(..<start)
            scanned -= start
            start = 0
        }
        let chunk = 64 << 10
        let end = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunk))
        var n: Int
        repeat {
            n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + end, chunk) }
        } while n < 0 && errno == EINTR
        buffer.removeLast(chunk - max(n, 0))
        if n <= 0 { ended = true }
    }
}
