// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Why a WebSocket call failed, in either adapter (`WebSocketPOSIX`, `WebSocketAsync`). Each case
/// has a one-line ``description`` fit for a log or a command-line error message.
///
/// | case | when |
/// | --- | --- |
/// | ``invalidURL(_:)``, ``tlsUnavailable``, ``invalidArgument(_:)`` | the call was given something it cannot use |
/// | ``addressResolutionFailed(host:reason:)``, ``connectFailed(_:_:)``, ``timedOut(_:)`` (`.connect`) | no TCP connection |
/// | ``proxy(_:)`` | a proxy could not be used: a bad proxy URL, a tunnel refused (HTTP status, SOCKS reply), a proxy that does not speak its protocol |
/// | ``tls(_:)`` | the TLS session failed: an untrusted or mismatched certificate, a pin, a peer that does not speak TLS |
/// | ``handshakeFailed(_:)`` | the opening handshake failed: refused (status, headers, body), redirected with redirects off, invalid, timed out |
/// | ``redirectRefused(_:reason:)``, ``tooManyRedirects(_:)`` | a redirect that may not be followed (`wss` to `ws`), or more than ``TransportOptions/maxRedirects`` |
/// | ``connection(_:)`` | the connection refused the call in its state (``WebSocketCore/Connection/UsageError``) |
/// | ``bufferFull(bufferedAmount:)`` | a send met the output buffer's high-water mark |
/// | ``timedOut(_:)`` (`.receive`, `.write`, `.ping`) | a wait ran out |
/// | ``transport(_:)`` | a system call on the socket failed (the connection was reset) |
/// | ``closed(_:)`` | the connection ended before the call could complete, or not cleanly |
/// | ``cancelled`` | the socket was cancelled before it opened; a wait for a message was cancelled |
/// | ``bindFailed(_:_:)`` | a server could not listen |
/// | ``eventHandlerInUse`` | the async face was used on a socket whose events go to a handler |
///
/// The end of a connection is not an error where a call can report it as a value: a receive returns
/// `nil`, and the socket's close status says how it ended.
public enum WebSocketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What ran out of time.
    public enum Timeout: Sendable, Hashable {
        /// No address accepted the TCP connection within ``TransportOptions/connectTimeout``.
        case connect
        /// No message arrived in time. Not fatal: receive again.
        case receive
        /// The peer accepted no byte for ``TransportOptions/writeTimeout``. Fatal: a frame may be half
        /// written, so the connection is closed (1006).
        case write
        /// No pong answered a ping in time. Not fatal by itself.
        case ping
    }

    /// The URL cannot be used; the reason.
    case invalidURL(String)
    /// A `wss://` URL, or a TLS server, without a TLS layer: set ``TransportOptions/tls`` (the
    /// `WebSocketTLS` module provides one). Never downgraded to `ws://`.
    case tlsUnavailable
    /// The host name could not be resolved; the resolver's message.
    case addressResolutionFailed(host: String, reason: String)
    /// No address accepted the connection: the last address tried and its error (connection refused,
    /// host or network unreachable, no such socket file…).
    case connectFailed(SocketAddress, Errno)
    /// A wait ran out.
    case timedOut(Timeout)
    /// The TLS session failed or could not be set up.
    case tls(TLSError)
    /// A proxy could not be used: its URL, the tunnel's setup, or the proxy's answer
    /// (``ProxyError/code`` says which).
    case proxy(ProxyError)
    /// (A server) The connection's PROXY protocol header (``TransportOptions/proxyProtocol``) was
    /// missing, malformed or too large, or came from a peer not trusted to send one: the connection
    /// was closed before any WebSocket byte was read.
    case proxyProtocol(ProxyProtocolError)
    /// The opening handshake failed: the server refused it (``WebSocketCore/Connection/HandshakeFailure/rejected(_:)`` carries
    /// the status, headers and body), answered invalidly, did not answer within
    /// ``WebSocketCore/Connection/Timeouts/handshake``, or closed the connection.
    ///
    /// (`indirect`, as ``redirectRefused(_:reason:)``: the failure's 216 bytes made every error, and
    /// every event and optional error that can hold one, that large, copied at each read.)
    indirect case handshakeFailed(Connection.HandshakeFailure)
    /// The server redirected to where the client will not go: from `wss` to `ws` (never followed, so
    /// that a redirect cannot strip TLS), or from a Unix socket endpoint.
    indirect case redirectRefused(Connection.Redirect, reason: String)
    /// The server redirected more than ``TransportOptions/maxRedirects`` times: every URL asked for, the
    /// first one first and the one not followed last.
    case tooManyRedirects([WebSocketURL])
    /// A system call on the socket failed (the connection was reset, say).
    case transport(Errno)
    /// The connection refused the call in its current state: sending after a close, a close code that
    /// may not be sent, a control payload over 125 bytes…
    case connection(Connection.UsageError)
    /// The output buffer has reached its high-water mark (``WebSocketCore/Connection/Limits/maxBufferedOutput``); nothing was
    /// queued. Send again once it drains.
    case bufferFull(bufferedAmount: Int)
    /// The connection ended (with this status) before the call could complete: a send waiting for
    /// room, a ping waiting for its pong, a message sequence whose connection was not closed cleanly.
    case closed(Connection.CloseStatus)
    /// The socket was cancelled before its connection opened (`cancel()`, or a cancelled async
    /// `connect`); or (a `WebSocketAsync` socket's messages) the task waiting for a message was
    /// cancelled, and the connection stays open.
    case cancelled
    /// A server could not bind or listen on the address.
    case bindFailed(SocketAddress, Errno)
    /// An argument that cannot be used (a Unix socket path too long, a second `serve`).
    case invalidArgument(String)
    /// The async face (messages, receive) was used on a socket whose events go to an event handler.
    case eventHandlerInUse

    /// A one-line explanation, e.g. "cannot connect to 127.0.0.1:9001: Connection refused".
    public var description: String {
        switch self {
        case .invalidURL(let reason):
            return "invalid URL: \(reason)"
        case .tlsUnavailable:
            return "wss:// needs TLS: set TransportOptions.tls (import WebSocketTLS)"
        case .addressResolutionFailed(let host, let reason):
            return "cannot resolve \(String(reflecting: host)): \(reason)"
        case .connectFailed(let address, let errno):
            return "cannot connect to \(address): \(errno)"
        case .timedOut(.connect):
            return "timed out connecting"
        case .timedOut(.receive):
            return "timed out waiting for a message"
        case .timedOut(.write):
            return "timed out writing: the peer stopped reading"
        case .timedOut(.ping):
            return "timed out waiting for a pong"
        case .tls(let error):
            return error.description
        case .proxy(let error):
            return error.description
        case .proxyProtocol(let error):
            return "PROXY protocol: \(error.description)"
        case .handshakeFailed(let failure):
            return failure.description
        case .redirectRefused(let redirect, let reason):
            return "redirect not followed (HTTP \(redirect.status) from \(redirect.from) to \(redirect.target)): \(reason)"
        case .tooManyRedirects(let hops):
            return "too many redirects (\(hops.count - 1)): " + hops.map(\.description).joined(separator: " -> ")
        case .transport(let errno):
            return "connection failed: \(errno)"
        case .connection(let error):
            return error.description
        case .bufferFull(let amount):
            return "the output buffer is full (\(amount) bytes): send again once it drains"
        case .closed(let status):
            return "connection closed: \(status)"
        case .cancelled:
            return "cancelled (before the connection opened, or while waiting for a message)"
        case .bindFailed(let address, let errno):
            return "cannot listen on \(address): \(errno)"
        case .invalidArgument(let reason):
            return reason
        case .eventHandlerInUse:
            return "this socket's events go to its event handler: messages and receive are not available"
        }
    }
}
