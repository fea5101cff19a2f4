#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketTransport

extension BlockingWebSocket {
    /// Connects to a WebSocket server and runs the opening handshake (and the TLS handshake first,
    /// for `wss`).
    ///
    /// ```swift
    /// var configuration = Configuration()
    /// configuration.limits.maxMessageSize = 64 << 20
    /// let socket = try BlockingWebSocket.connect(to: "ws://[::1]:9001/chat", subprotocols: ["chat.v1"],
    ///                                            configuration: configuration)
    /// ```
    ///
    /// - Parameters:
    ///   - url: `ws://host[:port]/resource` or `wss://…` (every address the host resolves to, IPv4
    ///     and IPv6, is tried in turn), or `ws+unix://PATH[:RESOURCE]` for a Unix domain socket (see
    ///     ``WebSocketTransport/WebSocketEndpoint``).
    ///   - subprotocols: to offer, in order of preference.
    ///   - headers: more request headers (`Origin`, `Cookie`, `Authorization`…).
    ///   - configuration: the connection's limits, timers and delivery.
    ///   - options: socket timeouts and options, and TLS for `wss`.
    /// - Throws: ``WebSocketTransport/WebSocketError``: `.invalidURL`, `.tlsUnavailable` (`wss` without
    ///   ``WebSocketTransport/TransportOptions/tls``), `.addressResolutionFailed`, `.connectFailed` (refused,
    ///   unreachable), `.timedOut(.connect)`, `.tls` (an untrusted certificate…), `.handshakeFailed`
    ///   (``WebSocketCore/Connection/HandshakeFailure/rejected(_:)`` carries the status, headers and body),
    ///   `.connection(.invalidHeader)` for a header that cannot be sent.
    public static func connect(to url: String, subprotocols: [String] = [], headers: Connection.HTTPHeaders = [:],
                               configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions()) throws(WebSocketError) -> BlockingWebSocket {
        try connect(to: WebSocketEndpoint(parsing: url), subprotocols: subprotocols, headers: headers,
                    configuration: configuration, options: options)
    }

    /// Connects to an endpoint (a TCP URL or a Unix domain socket) and runs the opening handshake.
    ///
    /// - Throws: as ``connect(to:subprotocols:headers:configuration:options:)-(String,_,_,_,_)`` with a URL string.
    ///
    /// RFC 6455 §4.1: <https://www.rfc-editor.org/rfc/rfc6455#section-4.1>
    public static func connect(to endpoint: WebSocketEndpoint, subprotocols: [String] = [],
                               headers: Connection.HTTPHeaders = [:], configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions()) throws(WebSocketError) -> BlockingWebSocket {
        try connect(Connection.ClientOptions(url: endpoint.url, subprotocols: subprotocols, headers: headers), via: endpoint,
                    configuration: configuration, options: options, system: .live)
    }

    /// Connects with every option of the opening handshake request (origin, cookies, extensions).
    ///
    /// - Parameters:
    ///   - request: the URL and the rest of the opening handshake request.
    ///   - endpoint: where to connect; by default the request's URL over TCP.
    ///   - configuration: the core's limits, timers and delivery.
    ///   - options: the transport's timeouts, buffer marks and TLS.
    /// - Throws: as ``connect(to:subprotocols:headers:configuration:options:)-(String,_,_,_,_)``.
    public static func connect(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint? = nil,
                               configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions()) throws(WebSocketError) -> BlockingWebSocket {
        try connect(request, via: endpoint ?? WebSocketEndpoint(url: request.url), configuration: configuration,
                    options: options, system: .live)
    }

    /// The endpoint form, over the given system calls (for tests).
    static func connect(to endpoint: WebSocketEndpoint, subprotocols: [String], headers: Connection.HTTPHeaders,
                        configuration: Connection.Configuration, options: TransportOptions,
                        system: SystemCalls) throws(WebSocketError) -> BlockingWebSocket {
        try connect(Connection.ClientOptions(url: endpoint.url, subprotocols: subprotocols, headers: headers), via: endpoint,
                    configuration: configuration, options: options, system: system)
    }

    /// Connects, following redirects within ``TransportOptions/maxRedirects``: each hop is a new
    /// connection, with its own proxy choice and TLS name.
    static func connect(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint, configuration: Connection.Configuration,
                        options: TransportOptions, system: SystemCalls) throws(WebSocketError) -> BlockingWebSocket {
        var chain = RedirectChain(first: request.url, limit: options.maxRedirects)
        var hop = (request: request, endpoint: endpoint)
        while true {
            do throws(WebSocketError) {
                return try connectOnce(hop.request, via: hop.endpoint, configuration: configuration, options: options,
                                       system: system)
            } catch {
                guard case .handshakeFailed(let failure) = error,
                      let next = try chain.next(after: failure, request: hop.request, endpoint: hop.endpoint) else {
                    throw error
                }
                hop = next
            }
        }
    }

    /// One hop: connects and runs the opening handshake.
    private static func connectOnce(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint,
                                    configuration: Connection.Configuration, options: TransportOptions,
                                    system: SystemCalls) throws(WebSocketError) -> BlockingWebSocket {
        let plan = try ConnectionPipeline.client(request, via: endpoint, configuration: configuration, transport: options)
        let pipeline = plan.pipeline
        let socket = try openSocket(to: plan, options: options, system: system)
        let driver: ConnectionDriver
        do throws(Errno) {
            driver = try ConnectionDriver(socket: socket, pipeline: pipeline, options: options)
        } catch {
            throw .transport(error)
        }
        try driver.flush()
        let result = driver.reader.withLock { reader -> Result<Connection.HandshakeResult, WebSocketError> in
            var failure: WebSocketError? = nil
            while true {
                switch driver.pump(&reader, until: nil) {
                case .event(.handshakeCompleted(let result)):
                    return .success(result)
                case .event(.handshakeFailed(let handshakeFailure)):
                    failure = .handshakeFailed(handshakeFailure)
                case .event:
                    continue
                case .socketClosed, .limitReached:
                    // A transport failure (TLS, a reset) says more than the end of stream it caused.
                    return .failure(driver.transportFailure ?? failure ?? .handshakeFailed(.endOfStream))
                }
            }
        }
        return BlockingWebSocket(driver: driver, handshake: try result.get())
    }

    /// Resolves where the plan connects (the endpoint or its proxy) and connects to the first address that accepts.
    private static func openSocket(to plan: ClientPlan, options: TransportOptions,
                                   system: SystemCalls) throws(WebSocketError) -> Socket {
        let addresses = try plan.resolveAddresses()
        let deadline = options.connectTimeout.map { system.monotonicNow() + $0 }
        switch Socket.connect(to: addresses, deadline: deadline, system: system) {
        case .failure(.timedOut):
            throw .timedOut(.connect)
        case .failure(.failed(let address, let errno)):
            throw .connectFailed(address, errno)
        case .success(let socket):
            if options.noDelay, !plan.isUnixSocket {
                try? socket.setOption(level: SocketConstants.tcpProtocol, name: TCP_NODELAY, value: 1)
            }
            return socket
        }
    }
}
