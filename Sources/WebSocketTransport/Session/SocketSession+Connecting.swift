// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// A client's TCP connect attempts: the addresses in the order to try them, the one being tried,
/// and the deadline over them all (``TransportOptions/connectTimeout``).
package struct ConnectAttempts: Sendable {
    package var addresses: [SocketAddress]
    package var index = 0
    package var deadline: Connection.Instant?
    /// The last attempt's failure.
    var lastError: WebSocketError?
}

extension SocketSession {
    /// A client's session, resolving where it connects: the URL's host or the proxy
    /// ``TransportOptions/proxy`` chooses, with the layers (TLS, a tunnel) under the connection.
    /// Redirects are followed within ``TransportOptions/maxRedirects``, each hop a new pipeline.
    ///
    /// - Throws: as ``ConnectionPipeline/client(_:via:configuration:transport:)``.
    package init(client request: Connection.ClientOptions, via endpoint: WebSocketEndpoint,
                 configuration: Connection.Configuration, transport: TransportOptions,
                 settings: Settings) throws(WebSocketError) {
        let plan = try ConnectionPipeline.client(request, via: endpoint, configuration: configuration, transport: transport)
        let socketTarget = plan.socketTarget
        // Moved out of the plan, not copied: a copy of a pipeline retains every reference it holds.
        pipeline = (consume plan).pipeline
        self.settings = settings
        phase = .resolving
        stage = .resolving
        target = socketTarget
        hop = (request, endpoint)
        redirects = RedirectChain(first: request.url, limit: transport.maxRedirects)
        clientTransport = transport
    }

    /// Whether the socket is a Unix domain socket (no `TCP_NODELAY` then).
    package var isUnixSocket: Bool {
        if case .endpoint(let endpoint)? = target { return endpoint.unixSocketPath != nil }
        return false
    }

    /// (Resolving) The target resolved to `addresses`: connect attempts start, under the connect
    /// timeout counted from `now`.
    package mutating func resolved(_ addresses: [SocketAddress], at now: Connection.Instant) {
        guard case .resolving = phase, abandonment == nil else { return }
        phase = .connecting(ConnectAttempts(addresses: addresses, deadline: settings.connectTimeout.map { now + $0 }))
        if addresses.isEmpty { abandonment = .addressResolutionFailed(host: hop?.request.url.host ?? "", reason: "no address") }
    }

    /// (Resolving) The target did not resolve: the session fails with `error` (the directive closes).
    package mutating func resolutionFailed(_ error: WebSocketError) {
        guard case .resolving = phase, abandonment == nil else { return }
        abandonment = error
    }

    /// (Connecting) The address to try now, or `nil` when none is left (the session then fails with
    /// the last attempt's error, and the directive closes).
    package var connectAddress: SocketAddress? {
        guard case .connecting(let attempts) = phase, abandonment == nil,
              attempts.index < attempts.addresses.count else { return nil }
        return attempts.addresses[attempts.index]
    }

    /// (Connecting) The current attempt failed with `error`: the next address is tried.
    package mutating func connectAttemptFailed(_ error: Errno) {
        guard case .connecting(var attempts) = phase, abandonment == nil, attempts.index < attempts.addresses.count else { return }
        attempts.lastError = .connectFailed(attempts.addresses[attempts.index], error)
        attempts.index += 1
        phase = .connecting(attempts)
        if attempts.index >= attempts.addresses.count { abandonment = attempts.lastError }
    }

    /// (Connecting) TCP is connected: the transport layers' and the opening handshake start, their
    /// timer too, from `now`.
    package mutating func connected(at now: Connection.Instant) {
        // Cancelled meanwhile: the socket is closed unused.
        guard case .connecting = phase, abandonment == nil else { return }
        phase = .handshaking
        advanceTime(to: now)
    }

    /// (Client) Who waits for the connection to open: resumed once it opens, or with why it never
    /// did. A connection that opened and has ended since counts as opened: its messages are still
    /// to be read. The resumption is queued as an action: pull them.
    package mutating func waitForOpening(_ completion: @escaping SessionCompletion<Void>) {
        switch phase {
        case .open, .finished(.closed):
            resume(completion, .success(()))
        case .finished(.failed(let error)):
            resume(completion, .failure(error))
        case .resolving, .connecting, .handshaking:
            openWaiters.append(completion)
        }
    }
}
