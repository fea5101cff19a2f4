#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore
import WebSocketDeflate
import WebSocketEventLoop

/// `websocket serve`: a server that prints (or, with `--echo`, echoes) every message, until SIGINT or
/// SIGTERM.
enum ServeCommand {
    static func run(_ arguments: [String]) throws(UsageError) -> Never {
        // First, while this is the only thread: every thread created from now on inherits the mask,
        // so SIGINT and SIGTERM stay pending until stopOnSignals takes them, however early they come.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

        let parsed = try Arguments(arguments, flags: ["--echo", "--deflate"],
                                   options: Set(["--host", "--port", "--unix", "--max-message-size", "--max-frame-size",
                                                 "--max-fragments", "--subprotocol"]).union(TLSOptions.serverOptions))
        guard parsed.positional.isEmpty else { throw UsageError(message: "serve takes no argument \(parsed.positional[0])") }
        var configuration = Connection.Configuration()
        if let size = try parsed.size("--max-message-size") { configuration.limits.maxMessageSize = size }
        if let size = try parsed.size("--max-frame-size") { configuration.limits.maxFrameSize = size }
        if let count = try parsed.size("--max-fragments") { configuration.limits.maxFragmentsPerMessage = count }
        if parsed.flags.contains("--deflate") { configuration.extensions = [PerMessageDeflate()] }
        let port: UInt16
        if let text = parsed.value("--port") {
            guard let value = UInt16(text) else { throw UsageError(message: "--port: expected 0-65535, got \(String(reflecting: text))") }
            port = value
        } else {
            port = 9001
        }
        var options = TransportOptions()
        options.tls = try TLSOptions.server(parsed)
        let isEcho = parsed.flags.contains("--echo")
        let subprotocols = parsed.values("--subprotocol")

        let handshake: @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { request in
            // The first subprotocol in the client's order of preference that this server speaks.
            .accept(subprotocol: request.subprotocols.first { subprotocols.contains($0) })
        }
        let handler: EventLoopWebSocket.EventHandler = { socket, event in serve(socket, event, echo: isEcho) }
        let server: EventLoopServer
        do throws(WebSocketError) {
            if let path = parsed.value("--unix") {
                server = try EventLoopServer(unixSocketPath: path, configuration: configuration, options: options,
                                             handshake: handshake, handler: handler)
            } else {
                server = try EventLoopServer(host: parsed.value("--host") ?? "127.0.0.1", port: port,
                                             configuration: configuration, options: options,
                                             handshake: handshake, handler: handler)
            }
        } catch {
            printError("websocket: \(error)")
            exitProcess(ExitStatus(error).rawValue)
        }
        printOut("listening on \(url(of: server.localAddress, secure: options.tls != nil))")

        // SIGINT and SIGTERM (blocked in every thread) stop the server, so that open connections get
        // 1001, instead of killing the process.
        var waitedFor = stopSignals
        var number: Int32 = 0
        while sigwait(&waitedFor, &number) != 0 {}
        printError("stopping (signal \(number))")
        server.stop(closing: .goingAway)
        // The clients' answers, within the close timeout and the linger after it.
        _ = server.waitUntilIdle(timeout: (configuration.timeouts.close ?? .seconds(5)) + (configuration.timeouts.linger ?? .zero))
        printError("stopped")
        exitProcess(0)
    }

    /// One event of a connection, on its loop: print or echo each message, log its start and end on
    /// standard error.
    private static func serve(_ socket: EventLoopWebSocket, _ event: WebSocketEvent, echo: Bool) {
        switch event {
        case .open(let result):
            var opened = "\(peer(socket)): connected, resource \(result.resource)"
            if let subprotocol = result.subprotocol { opened += ", subprotocol \(subprotocol)" }
            printError(opened)
        case .text(let text):
            if echo { try? socket.send(text: text) } else { printOut(text) }
        case .binary(let bytes):
            if echo { try? socket.send(binary: bytes) } else { printOut("binary: " + hex(bytes)) }
        case .closed(let status):
            printError("\(peer(socket)): closed \(describe(status))")
        case .failed(let error):
            printError("\(peer(socket)): \(error)")
        case .fragment, .ping, .pong, .closeReceived, .drained:
            break
        }
    }

    private static func peer(_ socket: EventLoopWebSocket) -> String {
        socket.remoteAddress.map { "\($0)" } ?? "peer"
    }

    /// `ws://127.0.0.1:9001/`, `wss://[::1]:9001/`, `ws+unix:///path:/`.
    static func url(of address: SocketAddress, secure: Bool = false) -> String {
        let scheme = secure ? "wss" : "ws"
        switch address.family {
        case .ipv4: return "\(scheme)://\(address.host ?? ""):\(address.port ?? 0)/"
        case .ipv6: return "\(scheme)://[\(address.host ?? "")]:\(address.port ?? 0)/"
        case .unix: return "\(scheme)+unix://\(address.unixPath ?? ""):/"
        case .other: return "\(address)"
        }
    }
}
