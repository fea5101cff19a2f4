// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport
#if canImport(COpenSSL)
internal import COpenSSL
#endif

/// A TLS configuration loaded into OpenSSL once (certificates, key, trust store), which makes the
/// ``TLSSession`` of every connection. Set it as `TransportOptions.tls` for `wss://`:
///
/// ```swift
/// var options = TransportOptions()
/// options.tls = try TLSContext(.client())
/// ```
///
/// Create one per configuration and share it: loading the system's trust store and the
/// certificates is the expensive part, and any number of connections on any threads use a context
/// at once. Each session keeps what it was made with alive.
///
/// A server that stays up replaces its certificates with ``reload(_:)``: sessions made afterwards
/// use the new configuration, sessions already made keep the one they were made with.
///
/// OpenSSL 3 (the system's `libssl`) does the TLS, on Linux. Elsewhere the type exists but
/// ``init(_:)`` throws ``WebSocketTransport/TLSError/Kind/unavailable``.
public final class TLSContext: TLSLayerFactory, Sendable {
    private struct Loaded: Sendable {
        var configuration: TLSConfiguration
        #if canImport(COpenSSL)
        var native: NativeContext
        #endif
    }

    private let loaded: Locked<Loaded>

    /// The configuration the context was made from, or last reloaded with.
    public var configuration: TLSConfiguration { loaded.withLock { $0.configuration } }

    #if canImport(COpenSSL)
    /// What new sessions are made from.
    var native: NativeContext { loaded.withLock { $0.native } }
    #endif

    /// Loads `configuration`: reads its certificates, key and trust roots, and checks them.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/tls(_:)`` with ``WebSocketTransport/TLSError/Kind/configuration`` naming the file and
    ///   OpenSSL's reason: a file that does not open, PEM that does not parse, a key that does not
    ///   match its certificate, a pin that is not `sha256/BASE64`, a setting of the other role;
    ///   ``WebSocketTransport/TLSError/Kind/unavailable`` where OpenSSL is not available.
    public init(_ configuration: TLSConfiguration) throws(WebSocketError) {
        #if canImport(COpenSSL)
        loaded = Locked(Loaded(configuration: configuration, native: try NativeContext(configuration)))
        #else
        throw .tls(TLSError(.unavailable, reason: "WebSocketTLS uses OpenSSL, which this build does not have "
                                + "(Linux with libssl-dev only, for now)"))
        #endif
    }

    /// Loads `configuration` (files are read again) and makes every session from now on with it;
    /// sessions made before keep the configuration they were made with until they end. Safe while
    /// other threads make sessions: each gets the old configuration or the new one, whole.
    ///
    /// A server reloads its certificates this way without stopping (`websocket serve` does on
    /// SIGHUP). The session tickets it issued before are refused afterwards (the ticket key is new),
    /// as are a client's cached sessions (``TLSSessionCache``): a reload may change whom a context
    /// trusts.
    ///
    /// - Throws: what ``init(_:)`` throws, and ``WebSocketTransport/TLSError/Kind/configuration`` for
    ///   a configuration of the other role. The context then keeps its configuration: a reload that
    ///   fails changes nothing.
    public func reload(_ configuration: TLSConfiguration) throws(WebSocketError) {
        guard configuration.role == self.configuration.role else {
            throw .tls(TLSError(.configuration, reason: "a TLS context cannot be reloaded with a configuration of the other role"))
        }
        #if canImport(COpenSSL)
        // Loaded outside the lock: reading files and trust stores takes long, and sessions are made
        // meanwhile from the old one.
        let native = try NativeContext(configuration)
        loaded.withLock { $0 = Loaded(configuration: configuration, native: native) }
        #else
        throw .tls(TLSError(.unavailable))
        #endif
    }

    /// A client session that verifies the server as `serverName`, with its ClientHello ready to send.
    /// With a ``TLSConfiguration/sessionCache``, it offers the session cached for `serverName` and
    /// `port` by this context, and stores the sessions the server gives tickets for.
    ///
    /// - Parameters:
    ///   - serverName: a DNS name (verified against the certificate, and sent as SNI) or an IPv4 or
    ///     IPv6 address (verified against the certificate's IP addresses, never sent), without
    ///     brackets or an IPv6 zone.
    ///   - port: the server's port, which keeps the cached sessions of servers on one host apart;
    ///     `nil` (as the adapters' ``makeClientLayer(serverName:)`` gives) shares them by name.
    /// - Throws: ``WebSocketTransport/WebSocketError/tls(_:)`` (``WebSocketTransport/TLSError/Kind/configuration``) for a server context or
    ///   a name that is neither.
    public func makeClientSession(serverName: String, port: UInt16? = nil) throws(WebSocketError) -> TLSSession {
        #if canImport(COpenSSL)
        let native = self.native
        guard native.role == .client else {
            throw .tls(TLSError(.configuration, reason: "a server TLS context cannot make client sessions"))
        }
        return TLSSession(engine: try .client(native, serverName: serverName, port: port))
        #else
        throw .tls(TLSError(.unavailable))
        #endif
    }

    /// A server session, presenting the context's certificate chain (or the one of
    /// ``TLSConfiguration/additionalCertificates`` the client's server name chooses).
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/tls(_:)`` (``WebSocketTransport/TLSError/Kind/configuration``) for a client context.
    public func makeServerSession() throws(WebSocketError) -> TLSSession {
        #if canImport(COpenSSL)
        let native = self.native
        guard native.role == .server else {
            throw .tls(TLSError(.configuration, reason: "a client TLS context cannot make server sessions "
                                    + "(use TLSConfiguration.server(certificateChain:privateKey:))"))
        }
        return TLSSession(engine: try .server(native))
        #else
        throw .tls(TLSError(.unavailable))
        #endif
    }

    /// ``makeClientSession(serverName:port:)`` without a port, as the adapters call it.
    public func makeClientLayer(serverName: String) throws(WebSocketError) -> any TransportLayer {
        try makeClientSession(serverName: serverName)
    }

    /// ``makeServerSession()``, as the adapters call it.
    public func makeServerLayer() throws(WebSocketError) -> any TransportLayer {
        try makeServerSession()
    }
}
