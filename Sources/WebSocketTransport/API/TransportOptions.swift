// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// How an adapter runs a connection's transport: the socket, TLS, and what the adapter buffers. The
/// protocol's own limits and timers (opening handshake, keepalive, closing handshake, linger) are
/// not here: they are the connection's ``WebSocketCore/Connection/Configuration``.
///
/// One type for both adapters; the few options that only one of them uses say so.
///
/// ```swift
/// var options = TransportOptions()
/// options.connectTimeout = .seconds(3)
/// options.tls = try TLSContext(.client())        // import WebSocketTLS; for wss://
/// ```
public struct TransportOptions: Sendable {
    /// (Client) How long connecting may take, over every address the host resolves to in turn.
    /// Default 10 seconds; `nil` waits as long as the kernel does. The opening handshake's own
    /// timeout (``WebSocketCore/Connection/Timeouts/handshake``) covers what comes after: TLS and the HTTP upgrade.
    public var connectTimeout: Duration? = .seconds(10)
    /// How long pending output may wait for the peer to accept a byte. Default 30 seconds; `nil` waits
    /// forever. A peer that reads, however slowly, never trips it; one that stops reading altogether
    /// ends the connection (1006, ``WebSocketError/timedOut(_:)`` `.write`), since a frame may be half
    /// written.
    public var writeTimeout: Duration? = .seconds(30)
    /// How long a receive waits for a message when the call gives no timeout of its own. Default
    /// `nil`: until one comes or the connection ends (the connection's timers run meanwhile).
    public var receiveTimeout: Duration? = nil
    /// Set `TCP_NODELAY`: frames are written whole, so Nagle's algorithm only adds latency. Default
    /// `true`.
    public var noDelay = true
    /// Also deliver pings, pongs and the peer's Close frame as messages (``WebSocketMessage/ping(_:)``,
    /// ``WebSocketMessage/pong(_:)``, ``WebSocketMessage/close(_:)``). Default `false`: pings are
    /// answered and the closing handshake is run either way.
    public var receivesControlFrames = false
    /// (`WebSocketPOSIX`) The size of each read from the socket. Default 64 KiB; at least 512 bytes
    /// are used. `WebSocketAsync`'s event loops read into one 64 KiB buffer per loop instead.
    public var readBufferSize = 64 << 10
    /// (`WebSocketAsync`) The buffered output at or below which a drain is reported and async sends
    /// waiting for room resume. Default 64 KiB: low enough that the socket stays busy while you
    /// produce more.
    public var lowWaterMark = 64 << 10
    /// (`WebSocketAsync`) The most bytes of received messages handed to you and not yet consumed (a
    /// queue handler still running, messages not yet taken from the async face) before the socket
    /// stops reading, which lets TCP flow control slow the peer down. Default 4 MiB; one message larger than this
    /// still arrives whole (``WebSocketCore/Connection/Limits/maxMessageSize`` bounds it).
    public var maxUndeliveredBytes = 4 << 20
    /// (`WebSocketAsync`) The most received messages handed to you and not yet consumed, as
    /// ``maxUndeliveredBytes`` counts their bytes: what bounds a flood of empty messages (six bytes
    /// each on the wire, none of payload). Default 65,536.
    public var maxUndeliveredMessages = 65_536
    /// TLS: for a client, required by `wss://` URLs (which fail with ``WebSocketError/tlsUnavailable``
    /// without it, never falling back to `ws://`); for a server, every connection speaks TLS. Default
    /// `nil`. The `WebSocketTLS` module's `TLSContext` provides it.
    public var tls: (any TLSLayerFactory)? = nil
    /// (Client) The proxy to connect through. Default ``ProxySetting/direct``; `.environment` follows
    /// `wss_proxy`, `https_proxy`, `http_proxy`, `all_proxy` and `no_proxy` as curl does. An
    /// `https://` proxy needs ``tls`` too: the session to the proxy is verified for the proxy's name,
    /// the one inside the tunnel (for `wss://`) for the URL's host.
    public var proxy = ProxySetting.direct
    /// (Client) How many redirects (301, 302, 303, 307, 308 with a `Location`) a connect follows.
    /// Default 10; `0` follows none and reports the redirect as
    /// ``WebSocketCore/Connection/HandshakeFailure/redirected(_:)``. Each hop chooses its proxy and
    /// verifies TLS for its own host (pins included); `wss` to `ws` is refused; `Authorization`,
    /// `Cookie` headers, cookies and the URL's credentials are dropped when the host changes.
    public var maxRedirects = 10
    /// (Client) What a proxy tunnel's setup may hold (the proxy's reply head, bytes sent meanwhile).
    public var proxyLimits = ProxyLimits()
    /// (A server) Whose PROXY protocol header (HAProxy's, versions 1 and 2) a server reads: `nil`, the
    /// default, reads none, and a connection's address is its socket's. With trusted proxies set, a
    /// connection from one of them must begin with a header, whose client address the socket then
    /// reports (``WebSocketTransport/ProxyProtocolHeader``); a connection from any other peer is
    /// read as a direct client, and ended if it begins with a PROXY header anyway (a client may not
    /// say where it comes from). A missing, malformed or oversized header ends the connection before
    /// any WebSocket byte is read (``WebSocketError/proxyProtocol(_:)``). See docs/guide-deployment.md.
    public var proxyProtocol: TrustedProxies? = nil
    /// (A server) How long a connection may live and stay silent before the server closes it with
    /// 1001. Default: no limit. See ``LifetimeLimits`` and docs/guide-deployment.md.
    public var lifetimeLimits = LifetimeLimits()
    /// (A server) The largest PROXY protocol header read (version 2; version 1's line is 107 bytes at
    /// most). Default 4 KiB.
    public var maxProxyHeaderBytes = 4096
    /// (`WebSocketAsync`, a server) The most topics one connection may be subscribed to at once
    /// (`WebSocket.subscribe(_:)` refuses more). Default 256: a connection whose subscriptions its
    /// peer chooses cannot make the server's tables grow without bound.
    public var maxSubscriptions = 256
    /// (`WebSocketAsync`, a server) The longest topic name, in UTF-8 bytes, a connection may
    /// subscribe to. Default 512.
    public var maxTopicLength = 512
    /// (`WebSocketAsync`, a server) The most bytes of published messages on their way to the
    /// server's loops from other threads (`WebSocketServer.publish` and the like called off the
    /// loops, and what a backplane brings), counted once per loop each message goes to: a
    /// publish past it is refused (`publish` returns `false`) until the loops catch up, so that a
    /// publisher faster than the loops cannot grow memory without bound. Default 64 MiB.
    public var maxPublishBacklog = 64 << 20

    /// The defaults above.
    public init() {}

    /// The read buffer size actually used.
    package var effectiveReadBufferSize: Int { max(512, readBufferSize) }
}
