// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import EchoServerSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import WebSocketAsync

// `websocket-bench client-echo`: a load generator on the non-blocking adapter's client, the
// counterpart of Benchmarks/servers/wsload.c (its pingpong and pipeline modes), so that the two can
// drive the same echo server in the same run (Benchmarks/servers/client-compare.sh):
//
//   websocket-bench client-echo --url ws://HOST:PORT/PATH --conns N --size BYTES --seconds S
//       [--mode pingpong|pipeline] [--depth D] [--face loop|queue|async] [--text]
//
// It opens N connections with at most 256 opening handshakes in flight, then runs the traffic:
// pingpong, each connection sends a message and waits for its echo before the next; pipeline, each
// keeps D (default 64) messages in flight. The first 0.5 s is warm-up; echoes that arrive in the S
// seconds after it are counted (msgs/s) and timed (p50, p99, max: from the send to the echo). Then
// the echoes still in flight are awaited (at most 5 s) and every connection is closed with 1000.
//
// Every echo is checked: the kind (binary, or text with --text), the length and every byte. Message k
// of a connection carries k in its first bytes (binary: 8 little-endian bytes; text: 16 hex digits,
// lowest first), then the pattern byte i = i * 31 + 7 (binary) or "a" + i % 26 (text), as wsload's
// messages do; a wrong, reordered or missing echo is an error, and so is a connection that fails to
// open or closes before the end. One line of key=value pairs on stdout (msgs/s=N ... errors=N); the
// first errors are described on stderr; exit status 1 when errors > 0, 2 for a usage error.
//
// --face: the connections' handlers on their loop (`WebSocket.connect(to:handler:)`), handlers on one
// serial DispatchQueue (`queue:`), or async/await (`try await WebSocket.connect(to:)`, then one task
// per connection preferring the socket's loop as its executor, reading `messages`).

/// The traffic a connection keeps up.
enum ClientEchoMode: String {
    case pingpong
    case pipeline
}

/// Where a connection's events are handled.
enum ClientEchoFace: String {
    case loop
    case queue
    case async
}

/// The command line of `client-echo`.
struct ClientEchoOptions {
    var url = ""
    var conns = 0
    var size = 0
    var seconds = 0.0
    var mode = ClientEchoMode.pingpong
    var depth = 64
    var face = ClientEchoFace.loop
    var text = false

    static let usage = """
        usage: websocket-bench client-echo --url ws://HOST:PORT/PATH --conns N --size BYTES --seconds S
               [--mode pingpong|pipeline] [--depth D] [--face loop|queue|async] [--text]
        """

    /// Messages in flight per connection: 1 for pingpong.
    var inFlight: Int { mode == .pingpong ? 1 : depth }

    static func parse(_ arguments: [String]) -> ClientEchoOptions {
        var options = ClientEchoOptions()
        var seen: Set<String> = []
        var rest = arguments[...]
        while let name = rest.popFirst() {
            if name == "--text" {
                options.text = true
                continue
            }
            guard let value = rest.popFirst() else { usageError("\(name) needs a value") }
            seen.insert(name)
            switch name {
            case "--url": options.url = value
            case "--conns": options.conns = integer(name, value, 1...1_000_000)
            case "--size": options.size = integer(name, value, 0...(16 << 20))
            case "--seconds":
                guard let seconds = Double(value), seconds > 0, seconds <= 86_400 else {
                    usageError("--seconds: expected seconds from 0 to 86400, got \"\(value)\"")
                }
                options.seconds = seconds
            case "--mode":
                guard let mode = ClientEchoMode(rawValue: value) else { usageError("--mode: pingpong or pipeline, got \"\(value)\"") }
                options.mode = mode
            case "--depth": options.depth = integer(name, value, 1...100_000)
            case "--face":
                guard let face = ClientEchoFace(rawValue: value) else { usageError("--face: loop, queue or async, got \"\(value)\"") }
                options.face = face
            default:
                usageError("unknown option \"\(name)\"")
            }
        }
        for required in ["--url", "--conns", "--size", "--seconds"] where !seen.contains(required) {
            usageError("\(required) is required")
        }
        return options
    }

    private static func integer(_ name: String, _ text: String, _ range: ClosedRange<Int>) -> Int {
        guard let value = Int(text), range.contains(value) else {
            usageError("\(name): expected an integer from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
        }
        return value
    }

    static func usageError(_ message: String) -> Never {
        let line = Array("websocket-bench client-echo: \(message)\n\(usage)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(2)
    }
}

/// The monotonic clock in nanoseconds (`clock_gettime`, a vDSO call on Linux: no system call).
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

/// What every connection shares: the messages' shape and the measured window.
///
/// `@unchecked Sendable`: `windowStart` and `windowEnd` are written once, by the main thread, before
/// the first message of the run is sent, and only read afterwards (by handlers answering echoes,
/// which come after those sends).
final class ClientEchoPlan: @unchecked Sendable {
    let size: Int
    let text: Bool
    let depth: Int
    /// The bytes of every message after its sequence number.
    let pattern: [UInt8]
    /// How many leading bytes carry the sequence number.
    let sequenceLength: Int
    var windowStart: UInt64 = .max
    var windowEnd: UInt64 = .max

    init(_ options: ClientEchoOptions) {
        size = options.size
        text = options.text
        depth = options.inFlight
        sequenceLength = min(options.size, options.text ? 16 : 8)
        pattern = (0..<options.size).map { i in
            options.text ? UInt8(ascii: "a") + UInt8(i % 26) : UInt8(truncatingIfNeeded: i &* 31 &+ 7)
        }
    }

    /// Writes `sequence` into the first bytes of `payload` (see the top of this file).
    @inline(__always)
    func writeSequence(_ sequence: UInt64, into payload: UnsafeMutableRawBufferPointer) {
        if text {
            for i in 0..<sequenceLength {
                payload[i] = Self.hexDigits[Int((sequence >> (4 * UInt64(i))) & 15)]
            }
        } else {
            for i in 0..<sequenceLength {
                payload[i] = UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(i)))
            }
        }
    }

    /// Whether `payload` is message `sequence` exactly.
    @inline(__always)
    func matches(_ payload: UnsafeRawBufferPointer, sequence: UInt64) -> Bool {
        guard payload.count == size else { return false }
        if size == 0 { return true }
        var prefix: (UInt64, UInt64) = (0, 0)
        let prefixMatches = withUnsafeMutableBytes(of: &prefix) { prefixBytes in
            writeSequence(sequence, into: prefixBytes)
            return memcmp(prefixBytes.baseAddress!, payload.baseAddress!, sequenceLength) == 0
        }
        guard prefixMatches else { return false }
        let rest = size - sequenceLength
        if rest == 0 { return true }
        return pattern.withUnsafeBytes { pattern in
            memcmp(pattern.baseAddress! + sequenceLength, payload.baseAddress! + sequenceLength, rest) == 0
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

/// How the connections are getting on, for the main thread to wait on.
struct ClientEchoProgress: Sendable {
    /// Opening handshakes under way.
    var connecting = 0
    var opened = 0
    var openFailed = 0
    /// Connections done with the traffic: every echo back after the window, or failed.
    var settled = 0
    /// Connections whose socket is closed (the last event delivered).
    var ended = 0
    /// The main thread is closing the connections: a close from now on is expected.
    var closing = false
    /// Errors described on stderr so far (the first few only).
    var reported = 0
}

/// One connection's side of the run. Its counters are touched only by whoever handles the
/// connection's events (its loop, the queue, or its task), one at a time; the main thread reads them
/// once the connection has ended (through `progress`, whose lock orders the two), and before the
/// run, sends the first burst with its own buffer (writing only `sentAt` slots no echo has reached).
///
/// `@unchecked Sendable` for that reason.
final class ClientEchoConnection: @unchecked Sendable {
    let index: Int
    let plan: ClientEchoPlan
    let progress: Locked<ClientEchoProgress>
    // `@exclusivity(unchecked)`: each connection's state is touched by one thread at a time (the
    // main thread before the run and after it, its loop or queue during it), and the checks Swift
    // makes at run time for a class's stored properties cost about 230 instructions per echo, which
    // would count as the client library's in the callgrind figure of `client-echo`.
    /// Set by the main thread once connected (handler faces: right after `connect` returns).
    @exclusivity(unchecked) var socket: WebSocket?
    /// When each message in flight was sent, by sequence number modulo the depth.
    let sentAt: UnsafeMutablePointer<UInt64>
    /// The next message's bytes (the handlers' own; the main thread's burst uses another buffer).
    @exclusivity(unchecked) var payload: [UInt8]
    /// Echoes received and checked.
    @exclusivity(unchecked) var received: UInt64 = 0
    /// Messages sent after the first burst (which is `plan.depth` messages).
    @exclusivity(unchecked) var sentAfterBurst: UInt64 = 0
    /// Echoes in the window, and their round-trip times in nanoseconds.
    @exclusivity(unchecked) var counted = 0
    @exclusivity(unchecked) var samples: [UInt64] = []
    @exclusivity(unchecked) var isOpen = false
    @exclusivity(unchecked) var failed = false
    @exclusivity(unchecked) var settled = false
    @exclusivity(unchecked) var hasEnded = false
    /// The close was not clean although we started it.
    @exclusivity(unchecked) var closeFailed = false

    init(index: Int, plan: ClientEchoPlan, progress: Locked<ClientEchoProgress>) {
        self.index = index
        self.plan = plan
        self.progress = progress
        sentAt = .allocate(capacity: plan.depth)
        sentAt.initialize(repeating: 0, count: plan.depth)
        payload = plan.pattern
    }

    deinit {
        sentAt.deallocate()
    }

    var sent: UInt64 { UInt64(plan.depth) + sentAfterBurst }

    // MARK: Messages

    /// Message `sequence` as the face sends it, made in `buffer`; its send time (`now`, by default
    /// read here) recorded.
    @inline(__always)
    static func message(_ sequence: UInt64, in buffer: inout [UInt8], plan: ClientEchoPlan,
                        sentAt: UnsafeMutablePointer<UInt64>, now: UInt64 = monotonicNanoseconds()) -> WebSocketMessage {
        buffer.withUnsafeMutableBytes { plan.writeSequence(sequence, into: $0) }
        sentAt[Int(sequence % UInt64(plan.depth))] = now
        return plan.text ? .text(String(decoding: buffer, as: UTF8.self)) : .binary(buffer)
    }

    /// (Main thread, before the run; handler faces) Sends the first burst: messages 0 ..< depth.
    func sendBurst() {
        guard let socket else { return }
        var buffer = plan.pattern
        for sequence in 0..<UInt64(plan.depth) {
            let message = Self.message(sequence, in: &buffer, plan: plan, sentAt: sentAt)
            do throws(WebSocketError) {
                try socket.send(message)
            } catch {
                // A burst the buffer cannot take (a deep pipeline of large messages) would show as
                // missing echoes later; say so, and give the connection up.
                fail("burst send refused: \(error)")
                socket.cancel()
                return
            }
        }
    }

    /// What to do after an echo.
    enum Next {
        /// Send this message.
        case send(WebSocketMessage)
        case nothing
        /// The echo was wrong: the connection is given up.
        case giveUp
    }

    /// Checks an echo and says what to send next.
    @inline(__always)
    func echoed(_ message: WebSocketMessage) -> Next {
        let now = monotonicNanoseconds()
        guard !failed else { return .nothing }
        guard received < sent else {
            fail("a message nobody sent")
            return .giveUp
        }
        let sequence = received
        let good: Bool
        switch message {
        case .binary(let bytes) where !plan.text:
            good = bytes.withUnsafeBytes { plan.matches($0, sequence: sequence) }
        case .text(let text) where plan.text:
            var text = text
            good = text.withUTF8 { plan.matches(UnsafeRawBufferPointer($0), sequence: sequence) }
        default:
            good = false
        }
        guard good else {
            fail("echo \(sequence) wrong (kind, length, bytes or order): \(Self.describe(message))")
            return .giveUp
        }
        received += 1
        if now >= plan.windowStart && now < plan.windowEnd {
            counted += 1
            samples.append(now &- sentAt[Int(sequence % UInt64(plan.depth))])
        }
        if now < plan.windowEnd {
            let next = sequence + UInt64(plan.depth)
            sentAfterBurst += 1
            // The echo's arrival time is the next message's send time: one clock read per echo.
            return .send(Self.message(next, in: &payload, plan: plan, sentAt: sentAt, now: now))
        }
        if received == sent { settle() }
        return .nothing
    }

    private static func describe(_ message: WebSocketMessage) -> String {
        switch message {
        case .binary(let bytes): return "binary, \(bytes.count) bytes"
        case .text(let text): return "text, \(text.utf8.count) bytes"
        default: return "\(message)"
        }
    }

    // MARK: The connection's life

    /// The connection opened.
    func opened() {
        progress.withLock {
            isOpen = true
            $0.connecting -= 1
            $0.opened += 1
        }
        progress.broadcast()
    }

    /// The connection failed before it opened.
    func openFailed(_ error: WebSocketError) {
        fail("did not open: \(error)")
        progress.withLock {
            $0.connecting -= 1
            $0.openFailed += 1
        }
        ended(clean: false)
    }

    /// Something went wrong with the connection: one error, and it takes no further part.
    func fail(_ reason: String) {
        guard !failed else { return }
        let shouldReport = progress.withLock { (progress: inout ClientEchoProgress) -> Bool in
            failed = true
            progress.reported += 1
            return progress.reported <= 5
        }
        if shouldReport { writeError("connection \(index): \(reason)") }
        settle()
    }

    /// Done with the traffic.
    func settle() {
        guard !settled else { return }
        settled = true
        progress.withLock { $0.settled += 1 }
        progress.broadcast()
    }

    /// The socket is closed: expected once the main thread closes, an error before.
    func ended(clean: Bool, detail: @autoclosure () -> String = "") {
        guard !hasEnded else { return }
        let closing = progress.withLock { $0.closing }
        if !closing {
            fail("closed before the end: \(detail())")
        } else if !clean && !failed {
            closeFailed = true
        }
        progress.withLock {
            hasEnded = true
            $0.ended += 1
        }
        progress.broadcast()
    }

    // MARK: Faces

    /// The handler of both handler faces.
    func handle(_ socket: WebSocket, _ event: WebSocketEvent) {
        switch event {
        case .message(let message):
            switch echoed(message) {
            case .send(let next):
                do throws(WebSocketError) {
                    try socket.send(next)
                } catch {
                    fail("send refused: \(error)")
                    socket.cancel()
                }
            case .nothing:
                break
            case .giveUp:
                socket.cancel()
            }
        case .open:
            opened()
        case .closed(let status):
            ended(clean: status.wasClean, detail: "\(status)")
        case .failed(let error):
            if isOpen { ended(clean: false, detail: "\(error)") } else { openFailed(error) }
        case .drained:
            break
        }
    }

    /// (Async face) The connection's task: the first burst, then every echo and the message it calls
    /// for, until the connection ends.
    func run(_ socket: WebSocket) async {
        var clean = false
        var detail = ""
        do throws(WebSocketError) {
            for sequence in 0..<UInt64(plan.depth) {
                try await socket.send(Self.message(sequence, in: &payload, plan: plan, sentAt: sentAt))
            }
            var messages = socket.messages.makeAsyncIterator()
            while let message = try await messages.next() {
                switch echoed(message) {
                case .send(let next): try await socket.send(next)
                case .nothing: break
                case .giveUp: socket.cancel()
                }
            }
            clean = true
            detail = "\(socket.closeStatus.map { "\($0)" } ?? "closed")"
        } catch {
            detail = "\(error)"
        }
        ended(clean: clean, detail: detail)
    }
}

enum ClientEcho {
    /// The most opening handshakes in flight while the connections open (wsload's --batch default).
    static let handshakesInFlight = 256
    /// Seconds of traffic before the measured window.
    static let warmUp = 0.5
    /// The most the echoes in flight after the window may take, and the closing handshakes after.
    static let drainTimeout = 5.0
    static let closeTimeout = 12.0

    /// `client-echo ...`: see the top of this file.
    static func main(_ arguments: [String]) -> Never {
        let options = ClientEchoOptions.parse(arguments)
        signal(SIGPIPE, SIG_IGN)
        raiseDescriptorLimit(to: options.conns + 256)

        let plan = ClientEchoPlan(options)
        let progress = Locked(ClientEchoProgress())
        let connections = (0..<options.conns).map { ClientEchoConnection(index: $0, plan: plan, progress: progress) }
        let queue = DispatchQueue(label: "client-echo.handler")
        let begin = monotonicNanoseconds()

        // Open every connection, at most `handshakesInFlight` at a time.
        for connection in connections {
            _ = progress.wait(until: { $0.connecting < handshakesInFlight }, deadline: nil, now: clock)
            progress.withLock { $0.connecting += 1 }
            switch options.face {
            case .loop, .queue:
                do throws(WebSocketError) {
                    connection.socket = try WebSocket.connect(to: options.url, queue: options.face == .queue ? queue : nil) {
                        socket, event in connection.handle(socket, event)
                    }
                } catch {
                    connection.openFailed(error)
                }
            case .async:
                Task {
                    do throws(WebSocketError) {
                        let socket = try await WebSocket.connect(to: options.url)
                        connection.socket = socket
                        connection.opened()
                    } catch {
                        connection.openFailed(error)
                    }
                }
            }
        }
        _ = progress.wait(until: { $0.connecting == 0 }, deadline: nil, now: clock)
        let opened = connections.filter { $0.isOpenForRun }
        let openedAt = monotonicNanoseconds()

        // The run.
        let start = monotonicNanoseconds()
        plan.windowStart = start + UInt64(warmUp * 1e9)
        plan.windowEnd = plan.windowStart + UInt64(options.seconds * 1e9)
        if !opened.isEmpty {
            for connection in opened {
                guard let socket = connection.socket else { continue }
                switch options.face {
                case .loop:
                    // On the socket's loop, where its handler runs: an echo that came back before
                    // the burst was out would otherwise send its follow-up between two of the
                    // burst's messages (the order the echoes are checked by).
                    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                        Task(executorPreference: socket.executor) { connection.sendBurst() }
                    } else {
                        connection.sendBurst()
                    }
                case .queue:
                    // On the handlers' queue, for the same reason.
                    queue.async { connection.sendBurst() }
                case .async:
                    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                        Task(executorPreference: socket.executor) { await connection.run(socket) }
                    } else {
                        Task { await connection.run(socket) }
                    }
                }
            }
            // The bursts may take longer than the warm-up and the window together.
            let now = monotonicNanoseconds()
            if plan.windowEnd > now { sleep(seconds: Double(plan.windowEnd - now) / 1e9) }
            // The echoes still in flight.
            _ = progress.wait(until: { $0.settled >= opened.count }, deadline: clock() + .seconds(drainTimeout),
                              now: clock)
        }

        // Close every connection with 1000 and wait for the ends; cancel what does not end in time.
        progress.withLock { $0.closing = true }
        for connection in opened { try? connection.socket?.sendClose() }
        let everyone = options.conns
        if !progress.wait(until: { $0.ended >= everyone }, deadline: clock() + .seconds(closeTimeout), now: clock) {
            for connection in opened { connection.socket?.cancel() }
            _ = progress.wait(until: { $0.ended >= everyone }, deadline: clock() + .seconds(5), now: clock)
        }
        let end = monotonicNanoseconds()

        // The figures: only of connections that ended (the others still belong to their loops).
        let final = progress.withLock { $0 }
        var counted = 0
        var missing: UInt64 = 0
        var errors = 0
        var closeErrors = 0
        var samples: [UInt64] = []
        samples.reserveCapacity(opened.reduce(0) { $0 + ($1.hasEndedForReport ? $1.samples.count : 0) })
        for connection in connections {
            guard connection.hasEndedForReport else {
                errors += 1
                closeErrors += 1
                continue
            }
            counted += connection.counted
            samples.append(contentsOf: connection.samples)
            if connection.failed {
                errors += 1
            } else if connection.isOpen {
                missing += connection.sent - connection.received
                if connection.closeFailed { closeErrors += 1 }
            }
        }
        if missing > 0 { writeError("\(missing) echoes missing") }
        errors += Int(missing)
        samples.sort()
        func percentile(_ fraction: Double) -> Double {
            guard !samples.isEmpty else { return 0 }
            return Double(samples[Int(Double(samples.count - 1) * fraction + 0.5)]) / 1000
        }
        let window = opened.isEmpty ? 0 : options.seconds
        let rate = window > 0 ? Double(counted) / window : 0
        var line = "mode=\(options.mode.rawValue) face=\(options.face.rawValue) conns=\(options.conns)"
        if options.mode == .pipeline { line += " depth=\(options.depth)" }
        line += " size=\(options.size)\(options.text ? " text=1" : "") seconds=\(fixed(window, 3)) messages=\(counted)"
        line += " msgs/s=\(fixed(rate, 1)) p50_us=\(fixed(percentile(0.5), 1)) p99_us=\(fixed(percentile(0.99), 1))"
        line += " max_us=\(fixed(samples.isEmpty ? 0 : Double(samples[samples.count - 1]) / 1000, 1))"
        line += " opened=\(final.opened) failed=\(final.openFailed) open_s=\(fixed(Double(openedAt - begin) / 1e9, 3))"
        line += " missing=\(missing) close_errors=\(closeErrors) errors=\(errors) total_s=\(fixed(Double(end - begin) / 1e9, 3))"
        print(line)
        exit(errors > 0 ? 1 : 0)
    }

    /// `value` (not negative) with `digits` decimals.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((max(0, value) * Double(scale)).rounded())
        guard digits > 0 else { return "\(scaled)" }
        let fraction = String(scaled % scale)
        return "\(scaled / scale)." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
}

extension ClientEchoConnection {
    /// (Main thread, after the handshakes) Whether the connection opened and takes part in the run:
    /// read through `progress` (the handler set it before counting itself opened).
    var isOpenForRun: Bool { progress.withLock { _ in isOpen && !failed } }

    /// (Main thread, at the end) Whether its last event has come, so its counters are final.
    var hasEndedForReport: Bool { progress.withLock { _ in hasEnded } }
}

/// The monotonic clock as `Locked.wait` reads it.
private let clock: @Sendable () -> Connection.Instant = SystemCalls.live.monotonicNow

/// Writes `message` to standard error.
func writeError(_ message: String) {
    let line = Array("websocket-bench client-echo: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
