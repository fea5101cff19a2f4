// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketAsync
import WebSocketCore
import WebSocketTransport

/// The monotonic clock, for the tool's own waits.
func monotonicNow() -> Connection.Instant { SystemCalls.live.monotonicNow() }

/// `websocket connect URL`: standard input becomes messages, received messages go to standard
/// output; the exit status tells how the connection ended (``ExitStatus``).
///
/// A task runs a ``ReconnectingWebSocket`` (one connection, or more with `--reconnect`) and prints
/// each message as it arrives, while the main thread waits for its exit status; a thread reads
/// standard input and sends; a thread waits for SIGINT or SIGTERM. They meet in a
/// ``ClientSession``.
enum ConnectCommand {
    static func run(_ arguments: [String]) throws(UsageError) -> Never {
        let signals = StopSignals.block()   // first, while this is the only thread
        let settings = try ConnectSettings(parsing: arguments)
        let session = ClientSession(settings)
        startThread {
            let first = signals.wait()
            // Nothing open (still connecting, or waiting to reconnect): nothing to close.
            guard session.isOpen else { exitProcess(128 + first) }
            printError("websocket: signal \(first): closing (1001)")
            session.beginClose(.signal, code: .goingAway)
            // A second signal does not wait for the peer.
            exitProcess(128 + signals.wait())
        }
        // This thread waits for the run's status: not in dispatchMain(), whose signal thread would
        // unblock SIGINT and SIGTERM and die of them.
        let status = Locked<Int32?>(nil)
        Task.detached {
            let ended = await session.run()
            status.withLock { $0 = ended }
            status.broadcast()
        }
        _ = status.wait(until: { $0 != nil }, deadline: nil, now: monotonicNow)
        exitProcess(status.withLock { $0 } ?? ExitStatus.abnormalClosure.rawValue)
    }
}

/// Why the tool itself closes the connection; once set, no reconnection follows.
enum ClosingReason: Sendable {
    case endOfInput, messageLimit, signal, badInput
}

/// The state the tool's threads share about a `connect` run: the current connection (one after
/// another with `--reconnect`), what has been received, and how the run ends.
///
/// `@unchecked Sendable`: `settings` and `client` are constant, the rest is behind `state`'s lock.
final class ClientSession: @unchecked Sendable {
    let settings: ConnectSettings
    let client: ReconnectingWebSocket

    private struct State {
        enum Phase {
            /// Opening a connection (the first, or another with `--reconnect`): nothing to send on.
            case connecting
            case open(WebSocket)
            /// The run is over, with its exit status.
            case finished(Int32)
        }
        var phase = Phase.connecting
        /// Connections opened so far: a sender whose connection ended waits for this to change.
        var opened = 0
        /// Reconnection attempts announced so far, against ``ReconnectPolicy/limit``.
        var attempts = 0
        var received = 0
        var lastMessage: Connection.Instant?
        /// Why the tool closes; once set, no reconnection follows.
        var closing: ClosingReason?

        var socket: WebSocket? { if case .open(let socket) = phase { socket } else { nil } }
        var outcome: Int32? { if case .finished(let status) = phase { status } else { nil } }
        /// Refused input is a usage error, however the close that followed went.
        var override: Int32? { closing == .badInput ? ExitStatus.usage.rawValue : nil }
    }
    private let state = Locked(State())

    init(_ settings: ConnectSettings) {
        self.settings = settings
        client = ReconnectingWebSocket(settings.request, via: settings.endpoint, configuration: settings.configuration,
                                       options: settings.options, policy: settings.reconnect.policy)
    }

    /// Whether a connection is open (or closing) now.
    var isOpen: Bool { state.withLock { $0.socket != nil } }

    /// Runs the client: prints each connection's opening, messages and end, reconnects within
    /// `--reconnect`, and returns the exit status.
    func run() async -> Int32 {
        var status: Int32? = nil
        for await event in client.events {
            switch event {
            case .connecting:
                break
            case .opened(let socket):
                opened(socket)
                await receive(on: socket)
            case .failed(let error, let retry):
                // A try cut short by the tool's own close (input ended, a signal) is no failure.
                if case .cancelled = error, state.withLock({ $0.closing != nil }) { break }
                printError("websocket: \(error)")
                settings.output.failed("\(error)")
                if let retry { announce(retry) } else { status = ExitStatus(error).rawValue }
            case .closed(let closeStatus, let retry):
                let failure = state.withLock { state -> WebSocketError? in
                    defer { state.phase = .connecting }
                    return state.socket?.transportFailure
                }
                var line = "closed: \(describe(closeStatus))"
                if let failure { line += " (\(failure))" }
                printError(line)
                settings.output.closed(closeStatus, failure: failure.map { "\($0)" })
                if let retry { announce(retry) } else { status = state.withLock { $0.override } ?? ExitStatus(closeStatus).rawValue }
            }
        }
        // Ended without a last status: stopped by the tool while no connection was open.
        return end(status ?? state.withLock { $0.override } ?? ExitStatus.otherCloseCode.rawValue)
    }

    /// A connection opened: reported, offered to the sender (started with the first one).
    private func opened(_ socket: WebSocket) {
        let count = state.withLock { state in
            state.phase = .open(socket)
            state.opened += 1
            return state.opened
        }
        state.broadcast()
        let extensions = socket.handshake?.extensions.map(\.name) ?? []
        var line = "connected to \(settings.url)"
        if let subprotocol = socket.subprotocol { line += ", subprotocol \(subprotocol)" }
        for name in extensions { line += ", extension \(name)" }
        if count > 1 { line += " (connection \(count))" }
        printError(line)
        settings.output.opened(url: settings.url, subprotocol: socket.subprotocol, extensions: extensions)
        if count == 1, !settings.echo {
            startThread { [self] in sendStandardInput() }
        }
    }

    /// The next attempt comes after `delay`.
    private func announce(_ delay: Duration) {
        let attempt = state.withLock { state in
            state.phase = .connecting
            state.attempts += 1
            return state.attempts
        }
        state.broadcast()
        printError("reconnecting in \(JSON.seconds(delay)) s (attempt \(attempt) of \(settings.reconnect.limit))")
    }

    /// Prints (and with `--echo` sends back) the connection's messages as they arrive, until it ends.
    private func receive(on socket: WebSocket) async {
        do {
            for try await message in socket.messages {
                // Only data messages are answers: pings and pongs (shown with --jsonl) neither extend
                // the linger nor count towards --max-messages.
                switch message {
                case .text, .binary: break
                case .fragment, .ping, .pong, .close:
                    settings.output.received(message)
                    continue
                }
                let count = state.withLock { state in
                    state.received += 1
                    state.lastMessage = monotonicNow()
                    return state.received
                }
                state.broadcast()
                // Past the limit, messages that were already on their way before our Close are
                // dropped: -1 means one message out.
                if let limit = settings.messageLimit, count > limit { continue }
                settings.output.received(message)
                if settings.echo { try? await socket.send(message) }
                if let limit = settings.messageLimit, count == limit { beginClose(.messageLimit, code: .normalClosure) }
            }
        } catch {
            // The connection did not end cleanly: the client's next event says how.
        }
    }

    /// Starts the closing handshake (once) and stops reconnecting: the run reports how it ends.
    func beginClose(_ reason: ClosingReason, code: Connection.CloseCode) {
        let first = state.withLock { state in
            guard state.closing == nil else { return false }
            state.closing = reason
            return true
        }
        state.broadcast()
        if first { client.stop(code: code) }
    }

    /// Sends standard input, as lines or one message, then (unless `--no-close`) waits for the
    /// peer's answers and closes.
    func sendStandardInput() {
        var input = LineReader(whole: settings.wholeInput)
        while let bytes = input.next() {
            let message: WebSocketMessage
            if settings.binary {
                message = .binary(bytes)
            } else if let text = String(validating: bytes, as: UTF8.self) {
                message = .text(text)
            } else {
                let which = settings.wholeInput ? "standard input" : "standard input line \(input.lineNumber)"
                printError("websocket: \(which) is not valid UTF-8 (--binary sends bytes as they are)")
                beginClose(.badInput, code: .normalClosure)
                return
            }
            guard send(message) else { return }
        }
        if settings.keepOpen { return }
        lingerWhileAnswersCome()
        beginClose(.endOfInput, code: .normalClosure)
    }

    /// Sends on the current connection; when it has ended and another one is being opened, waits for
    /// that one. `false` once no connection will carry it.
    private func send(_ message: WebSocketMessage) -> Bool {
        while true {
            switch carrier() {
            case .ending:
                return false
            case .between(let opened):
                guard waitForNextConnection(after: opened) else { return false }
            case .open(let socket, let opened):
                do throws(WebSocketError) {
                    do throws(WebSocketError) {
                        try socket.send(message)
                    } catch .bufferFull {
                        try sendWhenThereIsRoom(message, on: socket)
                    }
                    return true
                } catch {
                    guard waitForNextConnection(after: opened) else { return false }
                }
            }
        }
    }

    /// What a send can go on now, with how many connections had opened, read in one look at the
    /// state: read apart, a connection opening between the two reads would be counted as one
    /// already gone, and the sender would wait for the one after it, for ever.
    private enum Carrier {
        case open(WebSocket, opened: Int)
        /// No connection is open; `opened` had opened.
        case between(opened: Int)
        /// The run is ending: nothing will carry it.
        case ending
    }

    private func carrier() -> Carrier {
        state.withLock { state in
            guard state.closing == nil, state.outcome == nil else { return .ending }
            guard let socket = state.socket else { return .between(opened: state.opened) }
            return .open(socket, opened: state.opened)
        }
    }

    /// The output buffer is at its high-water mark: the async send waits for room (standard input
    /// is faster than the network), and this thread waits for it.
    private func sendWhenThereIsRoom(_ message: WebSocketMessage, on socket: WebSocket) throws(WebSocketError) {
        let outcome = Locked<Result<Void, WebSocketError>?>(nil)
        Task {
            var result: Result<Void, WebSocketError> = .success(())
            do throws(WebSocketError) {
                try await socket.send(message)
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            outcome.broadcast()
        }
        _ = outcome.wait(until: { $0 != nil }, deadline: nil, now: monotonicNow)
        try outcome.withLock { $0! }.get()
    }

    /// Waits until a connection after the `opened`-th is open (`true`) or the run is ending.
    private func waitForNextConnection(after opened: Int) -> Bool {
        _ = state.wait(until: { $0.opened > opened && $0.socket != nil || $0.closing != nil || $0.outcome != nil },
                       deadline: nil, now: monotonicNow)
        return state.withLock { $0.closing == nil && $0.outcome == nil }
    }

    /// The peer's answers to what was sent may still be on their way: waits while they keep coming,
    /// at most `--linger` between two (from the end of input for the first).
    private func lingerWhileAnswersCome() {
        var last = monotonicNow()
        while true {
            let seen = state.withLock { $0.lastMessage }
            if let seen, seen > last { last = seen }
            let moved = state.wait(until: { ($0.lastMessage.map { $0 > last } ?? false) || $0.outcome != nil || $0.closing != nil },
                                   deadline: last + settings.linger, now: monotonicNow)
            if !moved || state.withLock({ $0.outcome != nil || $0.closing != nil }) { return }
        }
    }

    /// Records the exit status (the first one recorded stays) and wakes the other threads; returns
    /// the recorded one.
    @discardableResult
    private func end(_ status: Int32) -> Int32 {
        let recorded = state.withLock { state in
            if state.outcome == nil { state.phase = .finished(status) }
            return state.outcome ?? status
        }
        state.broadcast()
        return recorded
    }
}
