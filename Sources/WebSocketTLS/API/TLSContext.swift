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
/// certificates is the expensive part, and a context is immutable, so any number of connections on
/// any threads use it at once. Each session keeps its context alive.
///
/// OpenSSL 3 (the system's `libssl`) does the TLS, on Linux. Elsewhere the type exists but
/// ``init(_:)`` throws ``WebSocketTransport/TLSError/Kind/unavailable``.
public final class TLSContext: TLSLayerFactory, Sendable {
    /// The configuration the context was made from.
    public let configuration: TLSConfiguration

    #if canImport(COpenSSL)
    let native: NativeContext
    #endif

    /// Loads `configuration`: reads its certificates, key and trust roots, and checks them.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/tls(_:)`` with ``WebSocketTransport/TLSError/Kind/configuration`` naming the file and
    ///   OpenSSL's reason: a file that does not open, PEM that does not parse, a key that does not
    ///   match its certificate, a pin that is not `sha256/BASE64`, a setting of the other role;
    ///   ``WebSocketTransport/TLSError/Kind/unavailable`` where OpenSSL is not available.
    public init(_ configuration: TLSConfiguration) throws(WebSocketError) {
        self.configuration = configuration
        #if canImport(COpenSSL)
        native = try NativeContext(configuration)
        #else
        throw .tls(TLSError(.unavailable, reason: "WebSocketTLS uses OpenSSL, which this build does not have "
                                + "(Linux with libssl-dev only, for now)"))
        #endif
    }

    /// A client session that verifies the server as `serverName`, with its ClientHello ready to send.
    ///
    /// - Parameter serverName: a DNS name (verified against the certificate, and sent as SNI) or an
    ///   IPv4 or IPv6 address (verified against the certificate's IP addresses, never sent), without
    ///   brackets or an IPv6 zone.
    /// - Throws: ``WebSocketTransport/WebSocketError/tls(_:)`` (``WebSocketTransport/TLSError/Kind/configuration``) for a server context or
    ///   a name that is neither.
    public func makeClientSession(serverName: String) throws(WebSocketError) -> TLSSession {
        guard configuration.role == .client else {
            throw .tls(TLSError(.configuration, reason: "a server TLS context cannot make client sessions"))
        }
        #if canImport(COpenSSL)
        return TLSSession(engine: try .client(native, serverName: serverName))
        #else
        throw .tls(TLSError(.unavailable))
        #endif
    }

    /// A server session, presenting the context's certificate chain.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/tls(_:)`` (``WebSocketTransport/TLSError/Kind/configuration``) for a client context.
    public func makeServerSession() throws(WebSocketError) -> TLSSession {
        guard configuration.role == .server else {
            throw .tls(TLSError(.configuration, reason: "a client TLS context cannot make server sessions "
                                    + "(use TLSConfiguration.server(certificateChain:privateKey:))"))
        }
        #if canImport(COpenSSL)
        return TLSSession(engine: try .server(native))
        #else
        throw .tls(TLSError(.unavailable))
        #endif
    }

    /// ``makeClientSession(serverName:)``, as the adapters call it.
    public func makeClientLayer(serverName: String) throws(WebSocketError) -> any TransportLayer {
        try makeClientSession(serverName: serverName)
    }

    /// ``makeServerSession()``, as the adapters call it.
    public func makeServerLayer() throws(WebSocketError) -> any TransportLayer {
        try makeServerSession()
    }
}
