#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import WebSocketCore
import WebSocketPOSIX
import WebSocketTransport

/// The monotonic clock, for the tool's own waits.
func monotonicNow() -> Connection.Instant { SystemCalls.live.monotonicNow() }

/// `websocket connect URL`: standard input becomes messages, received messages go to standard
/// output; the exit status tells how the connection ended (``ExitStatus``).
///
/// Three threads: this one opens the connection (again, with `--reconnect`) and receives; one
/// reads standard input and sends; one waits for SIGINT or SIGTERM. They meet in a
/// ``ClientSession``.
enum ConnectCommand {
    static func run(_ arguments: [String]) throws(UsageError) -> Never {
        let signals = StopSignals.block()   // first, while this is the only thread
        let settings = try ConnectSettings(parsing: arguments)
        let session = ClientSession(settings)
        DispatchQueue.global().async { @Sendable in
            let first = signals.wait()
            // Nothing open (still connecting, or waiting to reconnect): nothing to close.
            guard session.isOpen else { exitProcess(128 + first) }
            printError("websocket: signal \(first): closing (1001)")
            session.beginClose(.signal, code: .goingAway)
            // A second signal does not wait for the peer.
            exitProcess(128 + signals.wait())
        }
        guard session.open() else { exitProcess(session.outcome ?? ExitStatus.connectFailed.rawValue) }
        if !settings.echo {
            DispatchQueue.global().async { @Sendable in session.sendStandardInput() }
        }
        exitProcess(session.receiveUntilDone())
    }
}

/// Why the tool itself closes the connection; once set, no reconnection follows.
enum ClosingReason: Sendable {
    case endOfInput, messageLimit, signal, badInput
}

/// The state the tool's threads share about a `connect` run: the current connection (one after
/// another with `--reconnect`), what has been received, and how the run ends.
///
/// `@unchecked Sendable`: `settings` is constant, the rest is behind `state`'s lock.
final class ClientSession: @unchecked Sendable {
    let settings: ConnectSettings

    private struct State {
        enum Phase {
            /// Opening a connection (the first, or another with `--reconnect`): nothing to send on.
            case connecting
            case open(BlockingWebSocket)
            /// The run is over, with its exit status.
            case finished(Int32)
        }
        var phase = Phase.connecting
        /// Connections opened so far: a sender whose connection ended waits for this to change.
        var opened = 0
        /// Reconnection attempts made, against ``ReconnectPolicy/limit``.
        var attempts = 0
        var received = 0
        var lastMessage: Connection.Instant?
        /// Why the tool closes; once set, no reconnection follows.
        var closing: ClosingReason?

        var socket: BlockingWebSocket? { if case .open(let socket) = phase { socket } else { nil } }
        var outcome: Int32? { if case .finished(let status) = phase { status } else { nil } }
        /// Refused input is a usage error, however the close that followed went.
        var override: Int32? { closing == .badInput ? ExitStatus.usage.rawValue : nil }
    }
    private let state = Locked(State())

    init(_ settings: ConnectSettings) { self.settings = settings }

    /// The exit status, once known.
    var outcome: Int32? { state.withLock { $0.outcome } }

    /// Whether a connection is open (or closing) now.
    var isOpen: Bool { state.withLock { $0.socket != nil } }

    /// Opens a connection, retrying transient failures within `--reconnect`. Returns `false` once
    /// the run is over (``outcome`` set).
    func open() -> Bool {
        while true {
            if state.withLock({ $0.closing != nil }) {
                end(state.withLock { $0.override } ?? ExitStatus.otherCloseCode.rawValue)
                return false
            }
            do throws(WebSocketError) {
                let socket = try BlockingWebSocket.connect(settings.request, via: settings.endpoint,
                                                           configuration: settings.configuration, options: settings.options)
                let attempt = state.withLock { state in
                    state.phase = .open(socket)
                    state.opened += 1
                    return state.opened
                }
                state.broadcast()
                var line = "connected to \(settings.url)"
                if let subprotocol = socket.subprotocol { line += ", subprotocol \(subprotocol)" }
                for ext in socket.handshake.extensions { line += ", extension \(ext.name)" }
                if attempt > 1 { line += " (connection \(attempt))" }
                printError(line)
                settings.output.opened(url: settings.url, subprotocol: socket.subprotocol,
                                       extensions: socket.handshake.extensions.map(\.name))
                return true
            } catch {
                printError("websocket: \(error)")
                settings.output.failed("\(error)")
                guard error.isWorthReconnecting, waitBeforeReconnecting() else {
                    end(ExitStatus(error).rawValue)
                    return false
                }
            }
        }
    }

    /// With attempts left, waits before the next one (a signal cuts the wait short) and returns
    /// `true`; `false` when the run should end.
    private func waitBeforeReconnecting() -> Bool {
        let attempt: Int? = state.withLock { state in
            guard state.closing == nil, state.attempts < settings.reconnect.limit else { return nil }
            state.attempts += 1
            state.phase = .connecting
            return state.attempts
        }
        guard let attempt else { return false }
        let delay = settings.reconnect.delay(before: attempt)
        printError("reconnecting in \(JSON.seconds(delay)) s (attempt \(attempt) of \(settings.reconnect.limit))")
        let interrupted = state.wait(until: { $0.closing != nil }, deadline: monotonicNow() + delay, now: monotonicNow)
        return !interrupted
    }

    /// Receives (printing, and with `--echo` sending back) until the connection ends, reconnects
    /// within `--reconnect` when it ends on a transient failure, and returns the exit status.
    func receiveUntilDone() -> Int32 {
        while true {
            guard let socket = state.withLock({ $0.socket }) else { return outcome ?? ExitStatus.abnormalClosure.rawValue }
            receive(on: socket)
            guard let status = socket.closeStatus else { return end(ExitStatus.abnormalClosure.rawValue) }
            var line = "closed: \(describe(status))"
            if let failure = socket.transportFailure { line += " (\(failure))" }
            printError(line)
            settings.output.closed(status, failure: socket.transportFailure.map { "\($0)" })
            guard status.isWorthReconnecting, waitBeforeReconnecting() else {
                return end(state.withLock { $0.override } ?? ExitStatus(status).rawValue)
            }
            guard open() else { return outcome ?? ExitStatus(status).rawValue }
        }
    }

    private func receive(on socket: BlockingWebSocket) {
        while true {
            let message: WebSocketMessage?
            do throws(WebSocketError) {
                message = try socket.receive()
            } catch {
                continue   // only a receive timeout lands here, and none is set
            }
            guard let message else { return }
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
            // Past the limit, messages that were already on their way before our Close are dropped:
            // -1 means one message out.
            if let limit = settings.messageLimit, count > limit { continue }
            settings.output.received(message)
            if settings.echo {
                switch message {
                case .text(let text): try? socket.send(text: text)
                case .binary(let bytes): try? socket.send(binary: bytes)
                case .fragment, .ping, .pong, .close: break
                }
            }
            if let limit = settings.messageLimit, count == limit { beginClose(.messageLimit, code: .normalClosure) }
        }
    }

    /// Starts the closing handshake (once): the receiving side reports how it ends.
    func beginClose(_ reason: ClosingReason, code: Connection.CloseCode) {
        let socket: BlockingWebSocket?? = state.withLock { state in
            guard state.closing == nil else { return .none }
            state.closing = reason
            return .some(state.socket)
        }
        state.broadcast()
        guard case .some(let current) = socket else { return }
        _ = try? current?.sendClose(code: code)
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
            let current = state.withLock { state -> (socket: BlockingWebSocket, opened: Int)? in
                guard state.closing == nil, state.outcome == nil, let socket = state.socket else { return nil }
                return (socket, state.opened)
            }
            guard let current else {
                guard waitForNextConnection(after: state.withLock { $0.opened }) else { return false }
                continue
            }
            do throws(WebSocketError) {
                try current.socket.send(message)
                return true
            } catch {
                guard waitForNextConnection(after: current.opened) else { return false }
            }
        }
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
