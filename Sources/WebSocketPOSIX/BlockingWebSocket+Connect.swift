#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore

extension BlockingWebSocket {
    /// Connects to a WebSocket server and runs the opening handshake.
    ///
    /// ```swift
    /// var configuration = Configuration()
    /// configuration.limits.maxMessageSize = 64 << 20
    /// let socket = try BlockingWebSocket.connect(to: "ws://[::1]:9001/chat", subprotocols: ["chat.v1"],
    ///                                            configuration: configuration)
    /// ```
    ///
    /// - Parameters:
    ///   - url: `ws://host[:port]/resource` (every address the host resolves to, IPv4 and IPv6, is
    ///     tried in turn) or `ws+unix://PATH[:RESOURCE]` for a Unix domain socket (see
    ///     ``WebSocketEndpoint``).
    ///   - subprotocols: to offer, in order of preference.
    ///   - headers: more request headers (`Origin`, `Cookie`, `Authorization`…).
    ///   - configuration: the connection's limits, timers and delivery.
    ///   - options: socket timeouts and options.
    /// - Throws: ``BlockingWebSocketError``: `.invalidURL`, `.tlsNotSupported`,
    ///   `.addressResolutionFailed`, `.connectFailed` (refused, unreachable), `.timedOut(.connect)`,
    ///   `.handshakeFailed` (``HandshakeFailure/rejected(_:)`` carries the status, headers and body),
    ///   `.connection(.invalidHeader)` for a header that cannot be sent.
    public static func connect(to url: String, subprotocols: [String] = [], headers: HTTPHeaders = [:],
                               configuration: Configuration = Configuration(),
                               options: SocketOptions = SocketOptions()) throws(BlockingWebSocketError) -> BlockingWebSocket {
        try connect(to: WebSocketEndpoint(parsing: url), subprotocols: subprotocols, headers: headers,
                    configuration: configuration, options: options)
    }

    /// Connects to an endpoint (a TCP URL or a Unix domain socket) and runs the opening handshake.
    ///
    /// - Throws: as ``connect(to:subprotocols:headers:configuration:options:)`` with a URL string.
    ///
    /// RFC 6455 §4.1: <https://www.rfc-editor.org/rfc/rfc6455#section-4.1>
    public static func connect(to endpoint: WebSocketEndpoint, subprotocols: [String] = [],
                               headers: HTTPHeaders = [:], configuration: Configuration = Configuration(),
                               options: SocketOptions = SocketOptions()) throws(BlockingWebSocketError) -> BlockingWebSocket {
        try connect(to: endpoint, subprotocols: subprotocols, headers: headers, configuration: configuration,
                    options: options, system: .live)
    }

    static func connect(to endpoint: WebSocketEndpoint, subprotocols: [String], headers: HTTPHeaders,
                        configuration: Configuration, options: SocketOptions,
                        system: SystemCalls) throws(BlockingWebSocketError) -> BlockingWebSocket {
        guard !endpoint.url.isSecure else { throw .tlsNotSupported }
        let connection: Connection
        do throws(ConnectionError) {
            let client = ClientOptions(url: endpoint.url, subprotocols: subprotocols, headers: headers)
            connection = try Connection(role: .client(client), configuration: configuration, random: SystemRandomPool())
        } catch {
            throw .connection(error)
        }

        let socket = try openSocket(to: endpoint, options: options, system: system)
        let driver: ConnectionDriver
        do throws(Errno) {
            driver = try ConnectionDriver(socket: socket, connection: connection, options: options)
        } catch {
            throw .transport(error)
        }
        try driver.flush()
        let result = driver.reader.withLock { buffer -> Result<HandshakeResult, BlockingWebSocketError> in
            var failure: BlockingWebSocketError? = nil
            while true {
                switch driver.pump(&buffer, until: nil) {
                case .event(.handshakeCompleted(let result)):
                    return .success(result)
                case .event(.handshakeFailed(let handshakeFailure)):
                    failure = .handshakeFailed(handshakeFailure)
                case .event:
                    continue
                case .transportClosed, .limitReached:
                    return .failure(failure ?? driver.transportFailure ?? .handshakeFailed(.endOfStream))
                }
            }
        }
        return BlockingWebSocket(driver: driver, handshake: try result.get())
    }

    /// Resolves the endpoint and connects to the first address that accepts.
    private static func openSocket(to endpoint: WebSocketEndpoint, options: SocketOptions,
                                   system: SystemCalls) throws(BlockingWebSocketError) -> Socket {
        let addresses: [SocketAddress]
        if let path = endpoint.unixSocketPath {
            do throws(Errno) {
                addresses = [try SocketAddress.unix(path: path)]
            } catch {
                throw .invalidArgument("unusable Unix socket path \(String(reflecting: path)): \(error)")
            }
        } else {
            // WebSocketURL keeps an IPv6 zone as written in the URL (%25zone); the resolver wants %zone.
            let host = endpoint.url.host.replacingPercent25()
            switch AddressResolution.resolve(host: host, port: endpoint.url.port) {
            case .success(let resolved): addresses = resolved
            case .failure(let failure): throw .addressResolutionFailed(host: host, reason: failure.message)
            }
        }
        let deadline = options.connectTimeout.map { system.monotonicNow() + $0 }
        switch Socket.connect(to: addresses, deadline: deadline, system: system) {
        case .failure(.timedOut):
            throw .timedOut(.connect)
        case .failure(.failed(let address, let errno)):
            throw .connectFailed(address, errno)
        case .success(let socket):
            if options.noDelay, endpoint.unixSocketPath == nil {
                try? socket.setOption(level: SocketConstants.tcpProtocol, name: TCP_NODELAY, value: 1)
            }
            return socket
        }
    }
}

extension String {
    /// The string with each `%25` replaced by `%`.
    fileprivate func replacingPercent25() -> String {
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: "%25") {
            result += rest[..<range.lowerBound] + "%"
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
