// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// A tunnel through an HTTP proxy: a ``TransportLayer`` that asks the proxy to `CONNECT` to the
/// target, reads its answer, and then carries bytes both ways unchanged (RFC 9110 §9.3.6).
///
/// ```swift
/// var tunnel = try HTTPConnectTunnel(host: "example.com", port: 443, credentials: proxy.credentials)
/// tunnel.withPendingOutput { socket.write($0) }   // CONNECT example.com:443 HTTP/1.1 …
/// tunnel.receive(bytesFromProxy)                  // HTTP/1.1 200 Connection established …
/// tunnel.status                                   // .established
/// ```
///
/// Put it under the layers that talk to the target (a TLS session for `wss://`, then the WebSocket
/// connection); for an `https://` proxy, over a TLS session with the proxy.
///
/// - The request is written when the layer is made: `CONNECT host:port HTTP/1.1`, `Host: host:port`
///   (an IPv6 address in brackets), `Proxy-Authorization: Basic …` with credentials (RFC 7617), then
///   the extra header fields given.
/// - ``status`` is ``TransportLayerStatus/establishing`` until the response head is read; any 2xx
///   (from an HTTP/1.0 or 1.1 proxy) makes it ``TransportLayerStatus/established``; 1xx interim
///   responses are skipped; a 407 fails it with ``ProxyError/Code/authenticationRequired``, any
///   other status with ``ProxyError/Code/refused``, both carrying the status and header fields (as
///   ``WebSocketError/proxy(_:)``). A reply that is not HTTP fails it with
///   ``ProxyError/Code/malformedReply``, one over ``ProxyLimits/maxResponseHeadBytes`` with
///   ``ProxyError/Code/responseTooLarge``, the stream ending before the head with
///   ``ProxyError/Code/endOfStream``.
/// - Bytes that arrive after the response head belong to the layer above and are read from
///   ``read(into:)``; bytes sent before the tunnel is up are held (up to
///   ``ProxyLimits/maxBufferedSend``) and written after the request once the proxy has said yes, never
///   before (a refusing proxy would read them as another request).
/// - Once established, the stream below ending is the tunnel's clean end
///   (``TransportLayerStatus/ended(clean:)`` with `true`): the tunnel has no closing of its own, and
///   the layer above judges whether its own stream was cut.
///
/// The response is parsed in linear time at any split, with every limit checked before a byte is
/// stored (the fuzz target `proxy-response` checks it).
public struct HTTPConnectTunnel: TransportLayer {
    /// Where the tunnel is.
    public private(set) var status = TransportLayerStatus.establishing
    /// The 2xx status the proxy answered with, once established.
    public private(set) var responseStatus: Int?

    private var parser: HTTPConnectResponseParser
    private let limits: ProxyLimits
    /// To the proxy, from it, and held until it says yes.
    private var streams: TunnelStreams

    /// A tunnel to `host` and `port` whose request is ready to be written.
    ///
    /// - Parameters:
    ///   - host: the target: a name, an IPv4 address, or an IPv6 address (with or without brackets;
    ///     its zone, meaningless to the proxy, is dropped).
    ///   - port: the target's port.
    ///   - credentials: sent as `Proxy-Authorization: Basic` (RFC 7617), UTF-8; a ``ProxyURL``'s
    ///     ``ProxyURL/credentials``. Default none.
    ///   - headers: more header fields for the request (a `User-Agent`, a `Proxy-Authorization` of
    ///     another scheme); default none.
    ///   - limits: what the layer may hold; default ``ProxyLimits/init()``.
    /// - Throws: ``ProxyError/Code/invalidTarget`` for a host that cannot be written in the request
    ///   line; ``ProxyError/Code/invalidCredentials`` for a user-id with a colon (RFC 7617 §2: it
    ///   would reach the proxy as another user and password) or a control character in either part;
    ///   ``ProxyError/Code/invalidHeader`` for a header field that cannot be sent, or that the tunnel
    ///   writes itself.
    public init(host: String, port: UInt16, credentials: ProxyCredentials? = nil, headers: Connection.HTTPHeaders = Connection.HTTPHeaders(),
                limits: ProxyLimits = ProxyLimits()) throws(ProxyError) {
        let request = try Self.request(target: TunnelTarget(host: host), port: port, credentials: credentials,
                                       headers: headers)
        self.limits = limits
        streams = TunnelStreams(maxBufferedSend: limits.maxBufferedSend)
        parser = HTTPConnectResponseParser(limits: limits)
        streams.output.append(request)
    }

    /// Takes the proxy's bytes: its response head while establishing, then the target's bytes.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        switch status {
        case .establishing:
            let (consumed, outcome) = parser.consume(bytes)
            switch outcome {
            case .needMore:
                break
            case .established(let code):
                responseStatus = code
                status = .established
                streams.established()
                if consumed < bytes.count { streams.inbound.append(UnsafeRawBufferPointer(rebasing: bytes[consumed...])) }
            case .failed(let error):
                fail(error)
            }
        case .established:
            streams.inbound.append(bytes)
        case .ended, .failed:
            break
        }
    }

    /// The stream below ended: before the response head, a failure (``ProxyError/Code/endOfStream``);
    /// after it, the tunnel's end.
    public mutating func receiveEOF() {
        switch status {
        case .establishing: fail(ProxyError(.endOfStream))
        case .established: status = .ended(clean: true)
        case .ended, .failed: break
        }
    }

    /// Moves up to `buffer.count` of the target's bytes into `buffer`; returns how many.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        streams.inbound.read(into: buffer)
    }

    /// Takes bytes for the target: held while establishing, then written after the request.
    public mutating func send(_ bytes: UnsafeRawBufferPointer) {
        if let error = streams.send(bytes, in: status) { fail(error) }
    }

    /// Nothing to do: the tunnel has no closing of its own (the socket's shutdown below ends it).
    public mutating func finishSending() {}

    /// The number of bytes waiting to go to the proxy.
    public var pendingOutputCount: Int { streams.output.count }

    /// Lends the bytes waiting to go to the proxy to `write`, which returns how many it wrote.
    public mutating func withPendingOutput(_ write: (UnsafeRawBufferPointer) -> Int) {
        streams.output.withBytes(write)
    }

    private mutating func fail(_ error: ProxyError) {
        status = .failed(.proxy(error))
        // The handshake's own messages still go out (so that what is written depends on the input,
        // not on when it was taken); the bytes from above never do.
        streams.failed()
    }

    /// Bytes held for the response head (for memory checks in tests and fuzzing).
    @_spi(Testing) public var bufferedResponseByteCount: Int { parser.retainedByteCount }
    /// Bytes sent from above and held until the tunnel is up.
    @_spi(Testing) public var heldSendCount: Int { streams.held.count }
    #if DEBUG
    /// The response parser's work so far, in bytes (linear in the input however it is split).
    @_spi(Testing) public var parserWorkCount: Int { parser.workCount }
    #endif

    // MARK: The request

    /// The `CONNECT` request head (RFC 9110 §9.3.6, RFC 9112 §3.2.3).
    static func request(target: TunnelTarget, port: UInt16, credentials: ProxyCredentials?,
                        headers: Connection.HTTPHeaders) throws(ProxyError) -> [UInt8] {
        let authority = target.authority(port: port)
        var head = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let credentials {
            head += "Proxy-Authorization: \(try basicAuthorization(credentials))\r\n"
        }
        for field in headers {
            let name = field.name.lowercased()
            guard HTTPTokens.isToken(field.name) else {
                throw ProxyError(.invalidHeader, reason: "\(String(reflecting: field.name)) is not a field name")
            }
            guard !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else {
                throw ProxyError(.invalidHeader, reason: "the value of \(field.name) holds CR, LF or NUL")
            }
            guard name != "host", !(name == "proxy-authorization" && credentials != nil) else {
                throw ProxyError(.invalidHeader, reason: "\(field.name) is written by the tunnel")
            }
            head += "\(field.name): \(field.value)\r\n"
        }
        return Array((head + "\r\n").utf8)
    }

    /// `Basic base64(user-id ":" password)`, UTF-8 (RFC 7617 §2, §2.1).
    static func basicAuthorization(_ credentials: ProxyCredentials) throws(ProxyError) -> String {
        // RFC 7617 §2: "a user-id containing a colon character is invalid" (the first colon separates
        // user-id and password); "The user-id and password MUST NOT contain any control characters".
        guard !credentials.user.utf8.contains(UInt8(ascii: ":")) else {
            throw ProxyError(.invalidCredentials, reason: "a Basic user-id cannot hold a colon (RFC 7617 §2)")
        }
        let isControl: (UInt8) -> Bool = { $0 < 0x20 || $0 == 0x7F }
        guard !credentials.user.utf8.contains(where: isControl), !credentials.password.utf8.contains(where: isControl) else {
            throw ProxyError(.invalidCredentials, reason: "control characters (RFC 7617 §2)")
        }
        return "Basic " + Base64.encode(Array(credentials.user.utf8) + [UInt8(ascii: ":")] + Array(credentials.password.utf8))
    }
}
