// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// A client that connects, and connects again when the connection ends in a way that may pass:
/// what `async for websocket in connect(...)` is in Python's websockets, with every attempt,
/// opening and closing (with its reason) in view.
///
/// ```swift
/// let client = try ReconnectingWebSocket(to: "wss://example.com/feed", options: options)
/// for await event in client.events {
///     switch event {
///     case .connecting(let attempt):
///         print(attempt == 0 ? "connecting" : "reconnect attempt \(attempt)")
///     case .opened(let socket):
///         try? await socket.send(.text("subscribe"))
///         do { for try await message in socket.messages { print(message) } } catch {}
///     case .failed(let error, let retry):
///         print("could not connect: \(error)", retry.map { "retrying in \($0)" } ?? "giving up")
///     case .closed(let status, let retry):
///         print("closed: \(status)", retry.map { "reconnecting in \($0)" } ?? "done")
///     }
/// }
///
/// // Or only the open connections, as in Python:
/// for try await socket in client.sockets {
///     do { for try await message in socket.messages { print(message) } } catch {}
/// }
/// ```
///
/// **What is retried.** A try that fails as ``WebSocketTransport/WebSocketError/isWorthReconnecting``
/// says (refused, unreachable, a timeout, a 5xx answer, a handshake cut short), and an open
/// connection that ends as ``WebSocketCore/Connection/CloseStatus/isWorthReconnecting`` says (lost
/// without a Close frame, a keepalive or close timeout, or the server's 1001, 1011, 1012, 1013,
/// 1014). Anything else ends the client: a normal close, a protocol error, a 4xx answer, a TLS
/// failure, a bad URL, and a closing handshake this side started (``stop(code:reason:)``, or the
/// socket's own `close`/`sendClose`), whatever its code. How soon and how many times is the
/// ``Policy``: by default a random 0–5 s first, then 3.1 s growing by 1.618 up to 90 s, with no
/// limit.
///
/// **Driven by iteration.** Nothing happens until ``events`` or ``sockets`` is iterated, and each
/// step (a try, the wait for the end of an open connection, a wait before the next try) is taken
/// inside a call to the iterator's `next()`, as in Python: while your loop body reads a
/// connection's messages, the client waits for you. Iterate one of the two sequences, from one
/// task at a time; a second iterator calling `next()` while another is inside it gets `nil`.
///
/// **Stopping.** ``stop(code:reason:)`` (from anywhere), or cancelling the iterating task, closes
/// the current connection (1000 by default), cuts a wait short, cancels a try under way, and ends
/// the sequences once the closing handshake is over. Breaking out of the loop does not close the
/// current socket: it is yours (close it, or call ``stop(code:reason:)``).
///
/// Each connection is an async-face ``WebSocket`` (read its ``WebSocket/messages``, send with
/// `send(_:)`, the async one that waits for room), made as ``WebSocket/connect(_:via:configuration:options:)`` makes them.
///
/// RFC 6455 §7.2.3: <https://www.rfc-editor.org/rfc/rfc6455#section-7.2.3>
public final class ReconnectingWebSocket: Sendable {
    /// How soon and how many times it reconnects.
    public let policy: Policy
    let request: Connection.ClientOptions
    let endpoint: WebSocketEndpoint
    let configuration: Connection.Configuration
    let options: TransportOptions
    let system: SystemCalls
    let loop: EventLoop?
    /// Time on the client's clock since it was made (for ``Policy/resetAfter``).
    let elapsed: @Sendable () -> Duration
    /// A wait on the client's clock; throws when cancelled.
    let sleep: @Sendable (Duration) async throws -> Void
    let state: Locked<State>

    /// Creates a client for a `ws://`, `wss://` or `ws+unix://` URL given as a string; nothing
    /// connects until ``events`` or ``sockets`` is iterated.
    ///
    /// ```swift
    /// let client = try ReconnectingWebSocket(to: "ws://127.0.0.1:9001/chat", subprotocols: ["chat.v1"])
    /// ```
    ///
    /// - Parameters:
    ///   - url: where to connect.
    ///   - subprotocols: offered in the opening handshake, in order of preference.
    ///   - headers: added to the opening handshake request.
    ///   - configuration: the core's limits, timers and delivery, for every connection.
    ///   - options: transport options (TLS for `wss`, a proxy, timeouts), for every connection.
    ///   - policy: how soon and how many times to reconnect; see ``Policy`` for the defaults.
    ///   - clock: the clock of the waits between tries (and of ``Policy/resetAfter``); default the
    ///     continuous clock. A test can pass one that records each wait and returns at once.
    ///   - random: the random numbers of the waits; default the system's. A test can pass a seeded
    ///     generator.
    /// - Throws: ``WebSocketTransport/WebSocketError/invalidURL(_:)``.
    public convenience init(to url: String, subprotocols: [String] = [], headers: Connection.HTTPHeaders = [:],
                            configuration: Connection.Configuration = Connection.Configuration(),
                            options: TransportOptions = TransportOptions(), policy: Policy = Policy(),
                            clock: some Clock<Duration> = ContinuousClock(),
                            random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) throws(WebSocketError) {
        let endpoint = try WebSocketEndpoint(parsing: url)
        self.init(Connection.ClientOptions(url: endpoint.url, subprotocols: subprotocols, headers: headers), via: endpoint,
                  configuration: configuration, options: options, policy: policy, clock: clock, random: random)
    }

    /// Creates a client with every option of the opening handshake request (subprotocols, origin,
    /// cookies, extensions, headers); nothing connects until ``events`` or ``sockets`` is iterated.
    ///
    /// ```swift
    /// var request = Connection.ClientOptions(url: try WebSocketURL(parsing: "wss://example.com/feed"))
    /// request.origin = "https://example.com"
    /// let client = ReconnectingWebSocket(request, options: options, policy: .init(maxAttempts: 20))
    /// ```
    ///
    /// - Parameters:
    ///   - request: the URL, subprotocols, extensions and headers of every opening handshake.
    ///   - endpoint: where to connect, when not the request's URL over TCP (a Unix domain socket).
    ///   - configuration: the core's limits, timers and delivery, for every connection.
    ///   - options: transport options (TLS for `wss`, a proxy, timeouts), for every connection.
    ///   - policy: how soon and how many times to reconnect; see ``Policy`` for the defaults.
    ///   - clock: the clock of the waits between tries; default the continuous clock.
    ///   - random: the random numbers of the waits; default the system's.
    public convenience init(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint? = nil,
                            configuration: Connection.Configuration = Connection.Configuration(),
                            options: TransportOptions = TransportOptions(), policy: Policy = Policy(),
                            clock: some Clock<Duration> = ContinuousClock(),
                            random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.init(request, via: endpoint ?? WebSocketEndpoint(url: request.url), configuration: configuration, options: options,
                  policy: policy, clock: clock, random: random, system: .live, loop: nil)
    }

    init(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint, configuration: Connection.Configuration,
         options: TransportOptions, policy: Policy, clock: some Clock<Duration>, random: some RandomNumberGenerator & Sendable,
         system: SystemCalls, loop: EventLoop?) {
        self.request = request
        self.endpoint = endpoint
        self.configuration = configuration
        self.options = options
        self.policy = policy
        self.system = system
        self.loop = loop
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleep = { try await clock.sleep(for: $0) }
        state = Locked(State(generator: random))
    }

    /// Stops: closes the current connection with `code` and `reason` (or cancels a try under way),
    /// cuts a wait for the next try short, and makes the sequences end, after reporting how the
    /// current connection closed. No reconnect follows. Returns at once; may be called from any
    /// thread, any number of times (the first call's code is used).
    ///
    /// ```swift
    /// let client = try ReconnectingWebSocket(to: "wss://example.com/feed")
    /// Task { try await Task.sleep(for: .seconds(60)); client.stop(code: .goingAway) }
    /// for await event in client.events { print(event) }   // ends with .closed(1001…, willRetryIn: nil)
    /// ```
    ///
    /// - Parameters:
    ///   - code: the close code; default 1000. A code that may not be sent (RFC 6455 §7.4) aborts the
    ///     connection instead.
    ///   - reason: at most 123 bytes of UTF-8.
    public func stop(code: Connection.CloseCode = .normalClosure, reason: String = "") {
        let (socket, cutWait) = state.withLock { state -> (WebSocket?, (@Sendable () -> Void)?) in
            guard !state.isStopped else { return (nil, nil) }
            state.isStopped = true
            return (state.socket, state.cutWait)
        }
        cutWait?()
        socket?.closeOrCancel(code: code, reason: reason)
    }
}
