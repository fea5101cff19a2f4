import Dispatch
import WebSocketTransport

extension WebSocket {
    // MARK: Connecting (delegate-queue face)

    /// Connects with every option of the opening handshake request (subprotocols, origin, cookies,
    /// extensions, headers): resolves the host, tries each address in turn (IPv4 and IPv6, within
    /// ``WebSocketTransport/TransportOptions/connectTimeout`` in all), runs the TLS handshake for `wss`, then the opening
    /// handshake, and reports everything to `handler` on `queue`, starting with
    /// ``WebSocketTransport/WebSocketEvent/open(_:)`` or ``WebSocketTransport/WebSocketEvent/failed(_:)``.
    ///
    /// Resolution (`getaddrinfo`, which may block on DNS) runs on the socket's own queue, never on yours.
    ///
    /// - Parameters:
    ///   - request: the URL, subprotocols, extensions and headers of the opening handshake.
    ///   - endpoint: where to connect, when not the request's URL over TCP (a Unix domain socket).
    ///   - configuration: the core's limits, timers and delivery; the defaults suit the open internet.
    ///   - options: transport options (TLS for `wss`); the defaults suit most uses.
    ///   - queue: where `handler` runs. A concurrent queue is fine: calls for one socket never overlap.
    ///   - handler: called with every event; the last one is `.closed` or `.failed`.
    /// - Throws: ``WebSocketTransport/WebSocketError/tlsUnavailable`` for `wss` without ``WebSocketTransport/TransportOptions/tls``,
    ///   ``WebSocketTransport/WebSocketError/connection(_:)`` for options the request cannot carry (a header with a
    ///   control character).
    ///
    /// RFC 6455 §4.1: <https://www.rfc-editor.org/rfc/rfc6455#section-4.1>
    public static func connect(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint? = nil,
                               configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions(), queue: DispatchQueue,
                               handler: @escaping EventHandler) throws(WebSocketError) -> WebSocket {
        let delivery = DispatchQueue(label: "WebSocket.events", target: queue)
        return try startClient(request, via: endpoint ?? WebSocketEndpoint(url: request.url), configuration: configuration,
                               options: options, consumer: .handler(queue: delivery, handler), system: .live)
    }

    /// Connects to a `ws://`, `wss://` or `ws+unix://` URL given as a string; see
    /// ``connect(_:via:configuration:options:queue:handler:)``.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/invalidURL(_:)`` as well.
    public static func connect(to url: String, subprotocols: [String] = [], headers: Connection.HTTPHeaders = [:],
                               configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions(), queue: DispatchQueue,
                               handler: @escaping EventHandler) throws(WebSocketError) -> WebSocket {
        let endpoint = try WebSocketEndpoint(parsing: url)
        return try connect(Connection.ClientOptions(url: endpoint.url, subprotocols: subprotocols, headers: headers), via: endpoint,
                           configuration: configuration, options: options, queue: queue, handler: handler)
    }

    static func startClient(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint, configuration: Connection.Configuration,
                            options: TransportOptions, consumer: Consumer,
                            system: SystemCalls) throws(WebSocketError) -> WebSocket {
        let plan = try ConnectionPipeline.client(request, via: endpoint, configuration: configuration, transport: options)
        let socket = WebSocket(pipeline: plan.pipeline, options: options, consumer: consumer, system: system)
        socket.redirects = RedirectChain(first: request.url, limit: options.maxRedirects)
        socket.currentHop = (request, endpoint)
        socket.queue.async { socket.startConnecting(to: plan) }
        return socket
    }

    // MARK: On the queue

    /// (Client) Resolves the endpoint and starts the first connect attempt.
    func startConnecting(to plan: ClientPlan) {
        guard case .idle = transport else { return }
        makeTimer()
        let addresses: [SocketAddress]
        do throws(WebSocketError) {
            addresses = try plan.resolveAddresses()
        } catch {
            connectFailure = error
            finish()
            return
        }
        startConnecting(to: addresses, isUnixSocket: plan.isUnixSocket)
    }

    /// (Client) Tries `addresses` in order until one accepts a connection.
    func startConnecting(to addresses: [SocketAddress], isUnixSocket: Bool = false) {
        if timer == nil { makeTimer() }
        let deadline = options.connectTimeout.map { system.monotonicNow() + $0 }
        attemptConnect(ConnectAttempt(addresses: addresses, index: 0, deadline: deadline, isUnixSocket: isUnixSocket),
                       lastError: nil)
    }

    /// Tries `attempt.addresses[attempt.index]`, or fails with `lastError` when none is left.
    private func attemptConnect(_ attempt: ConnectAttempt, lastError: WebSocketError?) {
        guard attempt.index < attempt.addresses.count else {
            connectFailure = lastError ?? .timedOut(.connect)
            finish()
            return
        }
        let address = attempt.addresses[attempt.index]
        do throws(Errno) {
            let (socket, isConnected) = try Socket.startConnect(to: address, system: system)
            sources = try makeSources(socket)
            transport = .connecting(attempt)
            if isConnected {
                didConnect()
            } else {
                updateInterest()
                rearmTimer()
            }
        } catch {
            var next = attempt
            next.index += 1
            attemptConnect(next, lastError: .connectFailed(address, error))
        }
    }

    /// The current attempt's socket became writable: connected, or the attempt failed.
    func finishConnectAttempt() {
        guard case .connecting(let attempt) = transport, let sources else { return }
        do throws(Errno) {
            try sources.socket.finishConnect()
            didConnect()
        } catch {
            abandonAttempt(.connectFailed(attempt.addresses[attempt.index], error))
        }
    }

    /// Closes the current attempt's socket and tries the next address.
    func abandonAttempt(_ error: WebSocketError) {
        guard case .connecting(var attempt) = transport else { return }
        sources?.close { }
        sources = nil
        attempt.index += 1
        attemptConnect(attempt, lastError: error)
    }

    /// Connecting took longer than ``TransportOptions/connectTimeout``.
    func connectTimedOut() {
        guard case .connecting = transport else { return }
        connectFailure = .timedOut(.connect)
        closeSocket()
    }

    /// TCP is connected: TLS, if any, and the opening handshake start (its timer too, at this first
    /// time report).
    private func didConnect() {
        guard case .connecting(let attempt) = transport else { return }
        if options.noDelay, !attempt.isUnixSocket, let sources {
            try? sources.socket.setOption(level: SocketConstants.tcpProtocol, name: TCP_NODELAY, value: 1)
        }
        transport = .open
        pump()
    }

    /// (Server) Starts a connection on a socket the server accepted.
    func startServing(_ socket: Socket) {
        guard case .idle = transport else { return }
        makeTimer()
        do throws(Errno) {
            sources = try makeSources(socket)
        } catch {
            // Nothing can watch the socket: the connection is given up before it starts.
            socket.close()
            pipeline.fail(.transport(error))
            finish()
            return
        }
        transport = .open
        pump()
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
