// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import WebSocketCore
import WebSocketAsync
import WebSocketTransport
import WebSocketRedis
import WebSocketTLS

/// `websocket serve`: a server that prints every message, or echoes it, runs a command per
/// connection, broadcasts standard input; until SIGINT or SIGTERM, which close every connection
/// with 1001. SIGHUP reloads the TLS certificates.
enum ServeCommand {
    static func run(_ arguments: [String]) throws(UsageError) -> Never {
        let signals = StopSignals.block(hangUp: true)   // first, while this is the only thread
        WebSocketServer.useOneHeapArena()   // before any thread allocates: one heap for all the loops
        let settings = try ServeSettings(parsing: arguments)
        if settings.command != nil { signal(SIGPIPE, SIG_IGN) }   // a command that stops reading is not fatal
        let connections = OpenConnections(limit: settings.maxConnections)
        let rooms = settings.broadcast ? BroadcastRooms() : nil

        let metricsSource = MetricsSource()
        let handshake: @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { request in
            if request.kind == .plain { return settings.plainPaths.answer(request, metrics: metricsSource) }
            if !settings.origins.isEmpty, !settings.origins.contains(request.origin?.lowercased() ?? "") {
                printError("refused a handshake from origin \(request.origin.map { String(reflecting: $0) } ?? "(none)"): 403")
                return .reject(status: 403, body: Array("origin not allowed\n".utf8))
            }
            if connections.isFull {
                printError("refused a handshake: \(connections.count) connections open (--max-connections): 503")
                return .reject(status: 503, headers: ["Retry-After": "1"], body: Array("too many connections\n".utf8))
            }
            // The first subprotocol in the client's order of preference that this server speaks.
            return .accept(subprotocol: request.subprotocols.first { settings.subprotocols.contains($0) })
        }
        let handler: WebSocket.EventHandler = { socket, event in
            serve(socket, event, settings: settings, connections: connections, rooms: rooms)
        }
        // Pings and pongs are printed (--jsonl) as they come.
        var options = settings.options
        options.receivesControlFrames = true
        let server: WebSocketServer
        do throws(WebSocketError) {
            if let path = settings.unixSocketPath {
                server = try WebSocketServer(unixSocketPath: path, configuration: settings.configuration, options: options,
                                             handshake: handshake, handler: handler)
            } else {
                server = try WebSocketServer(host: settings.host, port: settings.port,
                                             configuration: settings.configuration, options: options,
                                             handshake: handshake, handler: handler)
            }
        } catch {
            printError("websocket: \(error)")
            exitProcess(ExitStatus(error).rawValue)
        }
        rooms?.attach(server)
        if let redis = settings.redis { shareRooms(of: server, through: redis, prefix: settings.redisPrefix) }
        metricsSource.server = server
        printError("listening on \(url(of: server.localAddress, secure: settings.options.tls != nil))")
        if let rooms {
            DispatchQueue.global().async { @Sendable in broadcastStandardInput(to: rooms, binary: settings.binary) }
        }

        var number = signals.wait()
        // SIGHUP reloads the certificates of a wss:// server; without TLS it stops, as it did
        // before it was taken (but closing the connections first).
        while number == SIGHUP, let context = settings.options.tls as? TLSContext {
            TLSOptions.reload(context)
            number = signals.wait()
        }
        printError("stopping (signal \(number)): draining with \(settings.stopCode.rawValue)")
        // The clients' answers, within --drain-timeout, or the close timeout and the linger after it.
        let configuration = settings.configuration
        let timeout = settings.drainTimeout ?? (configuration.timeouts.close ?? .seconds(5)) + (configuration.timeouts.linger ?? .zero)
        // A second SIGINT or SIGTERM (an impatient operator, an orchestrator's kill after its grace
        // period) cuts the drain short: the report still prints.
        startThread { @Sendable in
            var second = signals.wait()
            while second == SIGHUP { second = signals.wait() }
            printError("signal \(second) again: aborting the drain")
            server.abortDrain()
        }
        let report = server.drain(code: settings.stopCode, timeout: timeout)
        printError("stopped: \(report.closedCleanly) closed cleanly, \(report.closedUncleanly) lost, \(report.aborted) aborted at the deadline")
        exitProcess(0)
    }

    /// `--redis URL`: the rooms shared with every server on the same Redis (a ``RedisBackplane``);
    /// its connections' cuts and returns said on standard error. A `rediss://` URL verifies Redis's
    /// certificate against the system's trust store.
    private static func shareRooms(of server: WebSocketServer, through redis: RedisEndpoint, prefix: String) {
        var options = RedisConnection.Options()
        if redis.usesTLS {
            do throws(WebSocketError) {
                options.tls = try TLSContext(.client())
            } catch {
                printError("websocket: --redis: \(error)")
                exitProcess(ExitStatus.usage.rawValue)
            }
        }
        let backplane = RedisBackplane(endpoint: redis, channelPrefix: prefix, options: options) { event in
            switch event {
            case .connected(let role, nil): printError("redis: \(role) connected to \(redis)")
            case .connected(let role, let outage?): printError("redis: \(role) back after \(outage) cut off (messages of that time are lost)")
            case .disconnected(let role, let error, let delay): printError("redis: \(role) cut off: \(error); retrying in \(delay)")
            case .failedToStart(let role, let error): printError("redis: \(role) could not start: \(error)")
            case .subscribed(let topic): printError("redis: sharing room \(topic)")
            }
        }
        server.attach(backplane)
    }

    /// `--broadcast`: each line of standard input to every room, so every open client. A line that
    /// is not UTF-8 (without `--binary`) is reported and skipped: the server goes on.
    private static func broadcastStandardInput(to rooms: BroadcastRooms, binary: Bool) {
        var input = LineReader()
        while let line = input.next() {
            if binary {
                rooms.announce(binary: line)
            } else if let text = String(validating: line, as: UTF8.self) {
                rooms.announce(text: text)
            } else {
                printError("websocket: standard input line \(input.lineNumber) is not valid UTF-8, not sent (--binary sends bytes)")
            }
        }
        printError("end of standard input: nothing more to broadcast")
    }

    /// One event of a connection, on its loop: print, echo or hand over each message (and with
    /// `--broadcast`, publish it to the client's room); log its start and end on standard error.
    private static func serve(_ socket: WebSocket, _ event: WebSocketEvent, settings: ServeSettings,
                              connections: OpenConnections, rooms: BroadcastRooms?) {
        switch event {
        case .open(let result):
            var opened = "\(peer(socket)): connected, resource \(result.resource)"
            if let subprotocol = result.subprotocol { opened += ", subprotocol \(subprotocol)" }
            // Behind an HTTP reverse proxy: what it says of the client, as sent (claims, not checked).
            for name in ["Forwarded", "X-Forwarded-For"] {
                let values = result.headers.values(for: name)
                if !values.isEmpty { opened += ", \(name) \(values.joined(separator: ", "))" }
            }
            printError(opened)
            settings.output.accepted(peer: peer(socket), resource: result.resource, subprotocol: result.subprotocol)
            guard connections.opened(socket) else {
                // Two handshakes passed the check at once: the later one is told to come back.
                try? socket.sendClose(code: .tryAgainLater, reason: "too many connections")
                return
            }
            rooms?.joined(socket, handshake: result, peer: peer(socket))
            if let command = settings.command {
                do throws(CommandError) {
                    let environment = [("WEBSOCKET_PEER", peer(socket)), ("WEBSOCKET_RESOURCE", result.resource),
                                       ("WEBSOCKET_SUBPROTOCOL", result.subprotocol ?? "")]
                    connections.attach(try CommandBridge(command: command, socket: socket, binary: settings.binary,
                                                         peer: peer(socket), environment: environment), to: socket)
                } catch {
                    printError("\(peer(socket)): --exec: \(error)")
                    try? socket.sendClose(code: .internalError, reason: "command failed to start")
                }
            }
        case .message(.text(let text)):
            rooms?.said(.text(text), by: socket)
            if let bridge = connections.bridge(of: socket) { hand(Array(text.utf8), to: bridge, of: socket) }
            else if settings.echo { try? socket.send(text: text) }
            else { settings.output.received(.text(text), peer: peer(socket)) }
        case .message(.binary(let bytes)):
            rooms?.said(.binary(bytes), by: socket)
            if let bridge = connections.bridge(of: socket) { hand(bytes, to: bridge, of: socket) }
            else if settings.echo { try? socket.send(binary: bytes) }
            else { settings.output.received(.binary(bytes), peer: peer(socket)) }
        case .message(.ping(let bytes)):
            settings.output.received(.ping(bytes), peer: peer(socket))
        case .message(.pong(let bytes)):
            settings.output.received(.pong(bytes), peer: peer(socket))
        case .closed(let status):
            connections.closed(socket)?.connectionEnded()
            printError("\(peer(socket)): closed \(describe(status))\(summary(of: socket))")
            settings.output.closed(status, failure: nil, peer: peer(socket))
        case .failed(let error):
            connections.closed(socket)?.connectionEnded()
            printError("\(peer(socket)): \(error)")
            settings.output.failed("\(error)", peer: peer(socket))
        case .message(.fragment), .message(.close), .drained:
            break
        }
    }

    /// A message for the connection's command; a command that does not keep up ends the connection
    /// (1011) rather than the server's memory.
    private static func hand(_ bytes: [UInt8], to bridge: CommandBridge, of socket: WebSocket) {
        guard !bridge.deliver(bytes) else { return }
        printError("\(peer(socket)): the command is not reading its input (\(CommandBridge.maxPendingBytes) bytes waiting): closing with 1011")
        try? socket.sendClose(code: .internalError, reason: "the command is not reading")
    }

    /// The rest of a closed connection's line: its resource, how long it was connected, and the
    /// bytes it read and wrote (on the wire).
    private static func summary(of socket: WebSocket) -> String {
        var text = ", resource \(socket.handshake?.resource ?? "-")"
        guard let traffic = socket.traffic else { return text }
        if let duration = traffic.duration { text += ", \(seconds(duration)) s" }
        text += ", \(traffic.bytesReceived) bytes in, \(traffic.bytesSent) bytes out"
        return text
    }

    /// `1.234`: seconds with milliseconds.
    private static func seconds(_ duration: Duration) -> String {
        let milliseconds = max(0, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    /// The client's address (behind a trusted proxy, the one its PROXY header gives).
    private static func peer(_ socket: WebSocket) -> String {
        socket.clientAddress.map { "\($0)" } ?? "peer"
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

/// The server's open connections: their count against `--max-connections`, and each one's
/// `--exec` command.
///
/// `@unchecked Sendable`: everything is behind `state`'s lock.
final class OpenConnections: @unchecked Sendable {
    private let limit: Int?
    private let state = Locked([ObjectIdentifier: CommandBridge?]())

    init(limit: Int?) { self.limit = limit }

    var count: Int { state.withLock { $0.count } }
    var isFull: Bool { limit.map { count >= $0 } ?? false }

    /// Counts a connection that opened; `false` when that is one too many.
    func opened(_ socket: WebSocket) -> Bool {
        state.withLock { open in
            if let limit, open.count >= limit { return false }
            open[ObjectIdentifier(socket)] = .some(nil)
            return true
        }
    }

    func attach(_ bridge: CommandBridge, to socket: WebSocket) {
        state.withLock { $0[ObjectIdentifier(socket)] = .some(bridge) }
    }

    func bridge(of socket: WebSocket) -> CommandBridge? {
        state.withLock { $0[ObjectIdentifier(socket)] ?? nil }
    }

    /// Forgets a connection that ended, returning its command.
    func closed(_ socket: WebSocket) -> CommandBridge? {
        state.withLock { $0.removeValue(forKey: ObjectIdentifier(socket)) ?? nil }
    }
}
