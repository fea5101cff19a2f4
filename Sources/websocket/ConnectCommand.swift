#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import WebSocketCore
import WebSocketDeflate
import WebSocketPOSIX
import WebSocketTransport

/// The monotonic clock, for the tool's own waits.
func monotonicNow() -> Connection.Instant { SystemCalls.live.monotonicNow() }

/// `websocket connect URL`: standard input lines become text messages, received messages go to
/// standard output; the exit status tells how the connection ended (``ExitStatus``).
enum ConnectCommand {
    /// `--proxy URL`, `--no-proxy`, or by default the environment's proxy, as curl does.
    static func proxySetting(_ parsed: Arguments) throws(UsageError) -> ProxySetting {
        let explicit = parsed.value("--proxy")
        if parsed.flags.contains("--no-proxy") {
            guard explicit == nil else { throw UsageError(message: "--proxy and --no-proxy exclude each other") }
            return .direct
        }
        guard let explicit else { return .environment }
        do throws(ProxyError) {
            return try .url(explicit)
        } catch {
            throw UsageError(message: "--proxy: \(error)")
        }
    }

    static func run(_ arguments: [String]) throws(UsageError) -> Never {
        let parsed = try Arguments(arguments, flags: Set(["--echo", "--deflate", "--one-message", "--no-proxy"]).union(TLSOptions.clientFlags),
                                   options: Set(["--subprotocol", "--header", "--max-message-size", "--max-frame-size",
                                                 "--linger", "--max-messages", "--proxy", "--max-redirects"]).union(TLSOptions.clientOptions))
        guard parsed.positional.count == 1, let url = parsed.positional.first else {
            throw UsageError(message: parsed.positional.isEmpty ? "connect needs a URL" : "connect takes one URL")
        }
        var headers = Connection.HTTPHeaders()
        for header in parsed.values("--header") {
            guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
                throw UsageError(message: "--header: expected 'Name: value', got \(String(reflecting: header))")
            }
            let value = header[header.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers.append(name: String(header[..<colon]), value: String(value))
        }
        var configuration = Connection.Configuration()
        if let size = try parsed.size("--max-message-size") { configuration.limits.maxMessageSize = size }
        if let size = try parsed.size("--max-frame-size") { configuration.limits.maxFrameSize = size }
        if parsed.flags.contains("--deflate") { configuration.extensions = [PerMessageDeflate()] }
        let linger = try parsed.seconds("--linger") ?? .seconds(2)
        let messageLimit = parsed.flags.contains("--one-message") ? 1 : try parsed.size("--max-messages")

        var options = TransportOptions()
        let endpoint: WebSocketEndpoint
        do throws(WebSocketError) {
            endpoint = try WebSocketEndpoint(parsing: url)
        } catch {
            printError("websocket: \(error)")
            exitProcess(ExitStatus(error).rawValue)
        }
        options.proxy = try proxySetting(parsed)
        if let hops = try parsed.size("--max-redirects") { options.maxRedirects = hops }
        // An https:// proxy needs TLS even for a ws:// URL: the same trust settings verify the proxy.
        let proxy = endpoint.unixSocketPath == nil ? try? options.proxy.proxy(for: endpoint.url) : nil
        options.tls = try TLSOptions.client(parsed, isSecure: endpoint.url.isSecure || proxy?.scheme == .https)

        let socket: BlockingWebSocket
        do throws(WebSocketError) {
            socket = try BlockingWebSocket.connect(to: endpoint, subprotocols: parsed.values("--subprotocol"),
                                                   headers: headers, configuration: configuration, options: options)
        } catch {
            printError("websocket: \(error)")
            exitProcess(ExitStatus(error).rawValue)
        }
        var connected = "connected to \(url)"
        if let subprotocol = socket.subprotocol { connected += ", subprotocol \(subprotocol)" }
        for ext in socket.handshake.extensions { connected += ", extension \(ext.name)" }
        printError(connected)

        let progress = Locked(Progress())
        if parsed.flags.contains("--echo") {
            receiveUntilClosed(socket, echo: true, limit: messageLimit, progress: progress)
        }
        DispatchQueue.global().async { @Sendable in
            receiveUntilClosed(socket, echo: false, limit: messageLimit, progress: progress)
        }
        while let line = readLine(strippingNewline: true) {
            do throws(WebSocketError) {
                try socket.send(text: line)
            } catch {
                break   // the connection is ending: the receiving side reports how, and exits
            }
        }
        // End of input: the peer's answers to what was sent may still be on their way. Wait while
        // they keep coming (at most `linger` between two), then start the closing handshake; the
        // receiving side prints what still arrives, and exits once the handshake is over.
        while true {
            let last = progress.withLock { $0.lastMessage ?? $0.start }
            let quiet = progress.wait(until: { $0.lastMessage != last && $0.lastMessage != nil || $0.isDone },
                                      deadline: last + linger, now: monotonicNow)
            if !quiet || progress.withLock({ $0.isDone }) { break }
        }
        _ = try? socket.sendClose()
        while true { pause() }
    }

    /// What the receiving side has seen, for the main thread's linger.
    struct Progress: Sendable {
        var start = monotonicNow()
        var lastMessage: Connection.Instant? = nil
        var count = 0
        /// The message limit was reached, or the connection is ending.
        var isDone = false
    }

    /// Prints (and with `echo`, sends back) every message; at the end prints how the connection
    /// ended and exits with the matching status.
    private static func receiveUntilClosed(_ socket: BlockingWebSocket, echo: Bool, limit: Int?,
                                           progress: Locked<Progress>) -> Never {
        while true {
            let message: WebSocketMessage?
            do throws(WebSocketError) {
                message = try socket.receive()
            } catch {
                continue   // only a receive timeout lands here, and none is set
            }
            guard let message else { break }
            let count = progress.withLock { state in
                state.count += 1
                state.lastMessage = monotonicNow()
                return state.count
            }
            progress.broadcast()
            switch message {
            case .text(let text):
                printOut(text)
                if echo { try? socket.send(text: text) }
            case .binary(let bytes):
                printOut("binary: " + hex(bytes))
                if echo { try? socket.send(binary: bytes) }
            case .fragment, .ping, .pong, .close:
                break
            }
            if let limit, count >= limit {
                progress.withLock { $0.isDone = true }
                progress.broadcast()
                _ = try? socket.sendClose()
            }
        }
        progress.withLock { $0.isDone = true }
        progress.broadcast()
        // receive() returned nil: the socket is closed, and the status known.
        guard let status = socket.closeStatus else { exitProcess(ExitStatus.abnormalClosure.rawValue) }
        var line = "closed: \(describe(status))"
        if let failure = socket.transportFailure { line += " (\(failure))" }
        printError(line)
        exitProcess(ExitStatus(status).rawValue)
    }
}
