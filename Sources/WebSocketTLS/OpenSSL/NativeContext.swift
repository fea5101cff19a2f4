// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import WebSocketTransport
internal import COpenSSL

/// An `SSL_CTX` made from a ``TLSConfiguration``: certificates, key, trust store, versions, ALPN, the
/// verification and key log callbacks, loaded once and shared by every session of a ``TLSContext``;
/// for a server with ``TLSConfiguration/additionalCertificates``, one more `SSL_CTX` per certificate,
/// set up alike, which the server name callback switches a session to (ServerNameSelection).
///
/// `@unchecked Sendable`: nothing changes the `SSL_CTX`s after `init`, and OpenSSL makes what
/// sessions do with a shared context (`SSL_new`, trust-store lookups, ticket keys) safe across
/// threads with its own locks. A ``TLSContext/reload(_:)`` makes a new one.
final class NativeContext: @unchecked Sendable {
    let pointer: OpaquePointer
    let role: TLSConfiguration.Role
    /// Whether sessions verify the peer's certificate (and so check the server's name).
    let verifiesPeer: Bool
    let limits: TLSLimits
    /// Unique for the process's life (never reused, unlike an object's address): what a
    /// ``TLSSessionCache`` keys sessions by, so that no other context resumes them.
    let identity: UInt64
    /// (Client) Where sessions are stored and looked up.
    let sessionCache: TLSSessionCache?
    /// (Server) Whether TLS 1.2 sessions get tickets.
    let issuesTLS12Tickets: Bool
    /// (Server) The certificates a client's server name chooses between, the default first.
    let serverIdentities: [ServerIdentity]
    /// Kept alive for the verification callback, which is given its address.
    private let verification: PeerVerification
    /// Kept alive for the key log callback, which finds it in the `SSL_CTX`.
    private let keyLog: KeyLogWriter?

    private static let identities = Locked<UInt64>(0)

    init(_ configuration: TLSConfiguration) throws(WebSocketError) {
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        try Self.validate(configuration)
        let verification = PeerVerification(pins: try PublicKeyPins(parsing: configuration.pinnedPublicKeys),
                                            evaluator: configuration.trustEvaluator)
        let sessionContext = try Self.sessionIDContext()
        var identities: [ServerIdentity] = []
        let keyLog: KeyLogWriter?
        do throws(WebSocketError) {
            identities.append(ServerIdentity(
                context: try Self.makeContext(configuration, chain: configuration.certificateChain, key: configuration.privateKey,
                                              verification: verification, sessionContext: sessionContext),
                names: []))
            for certificate in configuration.additionalCertificates {
                let names = try certificate.serverNames.map { name throws(WebSocketError) in try ServerNamePattern(validating: name) }
                identities.append(ServerIdentity(
                    context: try Self.makeContext(configuration, chain: certificate.certificateChain, key: certificate.privateKey,
                                                  verification: verification, sessionContext: sessionContext),
                    names: names))
            }
            // Last: a configuration that fails creates no key log file.
            keyLog = try configuration.unsafeKeyLog.map { log throws(WebSocketError) in try KeyLogWriter(log) }
            for identity in identities { try keyLog?.install(in: identity.context) }
        } catch {
            identities.forEach { SSL_CTX_free($0.context) }
            throw error
        }
        pointer = identities[0].context
        serverIdentities = identities
        role = configuration.role
        verifiesPeer = switch configuration.role {
        case .client: configuration.certificateVerification == .full
        case .server: configuration.clientCertificates != .none
        }
        limits = configuration.limits
        identity = Self.identities.withLock { last in
            last += 1
            return last
        }
        sessionCache = configuration.sessionCache
        if case .tls13AndTLS12 = configuration.sessionTickets { issuesTLS12Tickets = true } else { issuesTLS12Tickets = false }
        self.verification = verification
        self.keyLog = keyLog
        switch role {
        case .client:
            if sessionCache != nil { SSL_CTX_sess_set_new_cb(pointer, storeNewSession) }
        case .server:
            // Only the first context's callback runs; the others are switched to from it.
            _ = shim_SSL_CTX_set_tlsext_servername_callback(pointer, chooseServerCertificate)
            _ = shim_SSL_CTX_set_tlsext_servername_arg(pointer, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    deinit {
        serverIdentities.forEach { SSL_CTX_free($0.context) }
    }

    /// One `SSL_CTX` of `configuration`, presenting `chain` and `key`.
    private static func makeContext(_ configuration: TLSConfiguration, chain: PEMSource?, key: PEMSource?,
                                    verification: PeerVerification, sessionContext: [UInt8]) throws(WebSocketError) -> OpaquePointer {
        let method = configuration.role == .client ? TLS_client_method() : TLS_server_method()
        guard let context = SSL_CTX_new(method) else {
            throw .tlsConfiguration("cannot create an OpenSSL context")
        }
        do throws(WebSocketError) {
            try configureProtocol(context, configuration)
            try configureResumption(context, configuration, sessionContext: sessionContext)
            try configureIdentity(context, chain: chain, key: key)
            try configureVerification(context, configuration, verification: verification)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        return context
    }

    /// A random session ID context, the same for every `SSL_CTX` of one ``NativeContext``: OpenSSL
    /// resumes a session only in the context it names, and refuses to resume at all on a server
    /// that verifies clients without one.
    private static func sessionIDContext() throws(WebSocketError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        guard bytes.withUnsafeMutableBufferPointer({ RAND_bytes($0.baseAddress, Int32($0.count)) }) == 1 else {
            throw .tlsConfiguration("no random bytes for the session ID context")
        }
        return bytes
    }

    /// Settings that belong to the other role, or that contradict each other, are refused rather
    /// than ignored: someone who set them expects them to act.
    private static func validate(_ configuration: TLSConfiguration) throws(WebSocketError) {
        func refuse(_ reason: String) -> WebSocketError { .tls(TLSError(.configuration, reason: reason)) }
        switch configuration.role {
        case .client:
            guard configuration.clientCertificates == .none else {
                throw refuse("clientCertificates is a server setting (a client presents certificateChain)")
            }
            if configuration.certificateVerification == .disabledInsecurely, !configuration.pinnedPublicKeys.isEmpty {
                throw refuse("pinnedPublicKeys need certificate verification: pins are checked on a verified chain")
            }
            guard configuration.additionalCertificates.isEmpty else {
                throw refuse("additionalCertificates is a server setting")
            }
            guard configuration.sessionTickets == TLSConfiguration.client().sessionTickets else {
                throw refuse("sessionTickets is a server setting (a client resumes sessions with a sessionCache)")
            }
            if configuration.certificateVerification == .disabledInsecurely, configuration.trustEvaluator != nil {
                throw refuse("trustEvaluator needs certificate verification: it decides on the verification's verdict "
                                 + "(to accept a certificate the verification fails, return .acceptOverridingFailure)")
            }
        case .server:
            guard configuration.pinnedPublicKeys.isEmpty else {
                throw refuse("pinnedPublicKeys is a client setting")
            }
            guard configuration.certificateVerification == .full, configuration.trustRoots == .system else {
                throw refuse("certificateVerification and trustRoots are client settings "
                                 + "(a server verifies clients as clientCertificates says)")
            }
            if configuration.trustEvaluator != nil, configuration.clientCertificates == .none {
                throw refuse("trustEvaluator decides on client certificates, which clientCertificates .none never asks for")
            }
            guard configuration.certificateChain != nil, configuration.privateKey != nil else {
                throw refuse("a server needs a certificate chain and its private key")
            }
            guard configuration.sessionCache == nil else {
                throw refuse("sessionCache is a client setting (a server resumes sessions with sessionTickets)")
            }
            if let lifetime = configuration.sessionTickets.lifetime,
               lifetime < .seconds(1) || lifetime > .seconds(604_800) || lifetime != .seconds(lifetime.components.seconds) {
                throw refuse("a session ticket lifetime is whole seconds, from 1 s to 7 days (RFC 8446 §4.6.1), not \(lifetime)")
            }
        }
        if let maximum = configuration.maximumVersion, maximum < configuration.minimumVersion {
            throw refuse("maximum version \(maximum) is below the minimum version \(configuration.minimumVersion)")
        }
    }

    private static func configureProtocol(_ context: OpaquePointer, _ configuration: TLSConfiguration) throws(WebSocketError) {
        guard shim_SSL_CTX_set_min_proto_version(context, configuration.minimumVersion.wireValue) == 1,
              shim_SSL_CTX_set_max_proto_version(context, configuration.maximumVersion?.wireValue ?? 0) == 1
        else { throw .tlsConfiguration("cannot set the TLS versions") }
        // Renegotiation is a past source of attacks and nothing here needs it; compression leaks
        // secrets (CRIME).
        var options = shim_SSL_OP_NO_RENEGOTIATION() | shim_SSL_OP_NO_COMPRESSION()
        if configuration.role == .server { options |= shim_SSL_OP_CIPHER_SERVER_PREFERENCE() }
        _ = SSL_CTX_set_options(context, options)
        _ = shim_SSL_CTX_set_max_cert_list(context, max(0, configuration.limits.maxCertificateChainBytes))
        switch configuration.role {
        case .client:
            let status = ALPN.clientOffer.withUnsafeBufferPointer {
                SSL_CTX_set_alpn_protos(context, $0.baseAddress, UInt32($0.count))
            }
            // This one returns 0 on success.
            guard status == 0 else { throw .tlsConfiguration("cannot set ALPN") }
        case .server:
            SSL_CTX_set_alpn_select_cb(context, selectHTTP11, nil)
        }
    }

    /// Tickets (server) and the session cache (client). No side ever keeps sessions in OpenSSL's
    /// own cache: a server's tickets are stateless, and a client's sessions go to its
    /// ``TLSSessionCache`` (storeNewSession), whose keys keep contexts apart.
    private static func configureResumption(_ context: OpaquePointer, _ configuration: TLSConfiguration,
                                            sessionContext: [UInt8]) throws(WebSocketError) {
        switch configuration.role {
        case .client:
            let mode = configuration.sessionCache == nil ? SSL_SESS_CACHE_OFF : SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE
            _ = shim_SSL_CTX_set_session_cache_mode(context, Int(mode))
        case .server:
            _ = shim_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_OFF))
            guard sessionContext.withUnsafeBufferPointer({ SSL_CTX_set_session_id_context(context, $0.baseAddress, UInt32($0.count)) }) == 1
            else { throw .tlsConfiguration("cannot set the session ID context") }
            guard let lifetime = configuration.sessionTickets.lifetime else {
                // Neither TLS 1.3 tickets nor TLS 1.2 ones: every handshake is a full one.
                _ = SSL_CTX_set_num_tickets(context, 0)
                _ = SSL_CTX_set_options(context, shim_SSL_OP_NO_TICKET())
                return
            }
            // One ticket is all a client uses per connection (the default, 2, costs bytes and work).
            _ = SSL_CTX_set_num_tickets(context, 1)
            _ = SSL_CTX_set_timeout(context, Int(lifetime.components.seconds))
            guard SSL_CTX_set_session_ticket_cb(context, markTicket, checkTicket, nil) == 1 else {
                throw .tlsConfiguration("cannot set the session ticket callbacks")
            }
        }
    }

    /// The certificate chain and key presented to the peer.
    private static func configureIdentity(_ context: OpaquePointer, chain: PEMSource?, key: PEMSource?) throws(WebSocketError) {
        switch (chain, key) {
        case (nil, nil):
            return
        case (nil, .some):
            throw .tls(TLSError(.configuration, reason: "a private key without a certificate chain"))
        case (.some, nil):
            throw .tls(TLSError(.configuration, reason: "a certificate chain without its private key"))
        case (let chainSource?, let keySource?):
            let chain = try PEMLoading.certificates(from: chainSource, purpose: "the certificate chain")
            defer { chain.forEach { X509_free($0) } }
            guard SSL_CTX_use_certificate(context, chain[0]) == 1 else {
                throw .tlsConfiguration("cannot use the certificate of \(chainSource)")
            }
            for intermediate in chain.dropFirst() where shim_SSL_CTX_add1_chain_cert(context, intermediate) != 1 {
                throw .tlsConfiguration("cannot add an intermediate certificate of \(chainSource)")
            }
            let key = try PEMLoading.privateKey(from: keySource)
            defer { EVP_PKEY_free(key) }
            guard SSL_CTX_use_PrivateKey(context, key) == 1, SSL_CTX_check_private_key(context) == 1 else {
                throw .tlsConfiguration("the private key \(keySource) does not match the certificate of \(chainSource)")
            }
        }
    }

    /// Whom the peer's chain must lead to, and whether it is asked for at all.
    private static func configureVerification(_ context: OpaquePointer, _ configuration: TLSConfiguration,
                                              verification: PeerVerification) throws(WebSocketError) {
        let roots: TLSTrustRoots
        let mode: Int32
        switch configuration.role {
        case .client:
            guard configuration.certificateVerification == .full else {
                SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
                return
            }
            roots = configuration.trustRoots
            mode = SSL_VERIFY_PEER
        case .server:
            switch configuration.clientCertificates {
            case .none:
                SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
                return
            case .optional(let trustRoots):
                roots = trustRoots
                mode = SSL_VERIFY_PEER
            case .required(let trustRoots):
                roots = trustRoots
                mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT
            }
        }
        try loadTrustRoots(context, roots, advertise: configuration.role == .server)
        SSL_CTX_set_verify(context, mode, nil)
        // No partial wildcards (`w*.example.com`): RFC 6125 §7.2 advises against them.
        if let parameters = SSL_CTX_get0_param(context) {
            X509_VERIFY_PARAM_set_hostflags(parameters, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
        }
        if verification.isNeeded {
            SSL_CTX_set_cert_verify_callback(context, verifyPeerChain, Unmanaged.passUnretained(verification).toOpaque())
        }
    }

    /// - Parameter advertise: (server) also name the custom roots in the CertificateRequest, so that
    ///   a client with several certificates picks one these roots issued.
    private static func loadTrustRoots(_ context: OpaquePointer, _ roots: TLSTrustRoots, advertise: Bool) throws(WebSocketError) {
        if roots.includesSystemRoots, SSL_CTX_set_default_verify_paths(context) != 1 {
            throw .tlsConfiguration("cannot load the system's trust store")
        }
        guard let store = SSL_CTX_get_cert_store(context) else {
            throw .tlsConfiguration("no trust store")
        }
        for source in roots.customRoots {
            let certificates = try PEMLoading.certificates(from: source, purpose: "trust roots")
            defer { certificates.forEach { X509_free($0) } }
            for certificate in certificates {
                guard X509_STORE_add_cert(store, certificate) == 1 else {
                    throw .tlsConfiguration("cannot add a trust root of \(source)")
                }
                if advertise, SSL_CTX_add_client_CA(context, certificate) != 1 {
                    throw .tlsConfiguration("cannot name a trust root of \(source) to clients")
                }
            }
        }
    }
}

extension TLSVersion {
    /// The protocol version number OpenSSL takes (RFC 8446 §5.1).
    var wireValue: Int32 {
        switch self {
        case .v1_2: return TLS1_2_VERSION
        case .v1_3: return TLS1_3_VERSION
        }
    }
}
#endif
