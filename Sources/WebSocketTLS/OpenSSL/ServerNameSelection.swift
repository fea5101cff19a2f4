// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import WebSocketTransport
internal import COpenSSL

// How a server picks its certificate by the client's name (SNI).
//
// Each certificate has its own `SSL_CTX`, set up from the same configuration. Every session is made
// from the first (the default); OpenSSL's server name callback, which runs once the ClientHello
// is read and the version chosen, moves the session to the `SSL_CTX` of the certificate chosen
// (`SSL_set_SSL_CTX`, which swaps the certificate and key and keeps everything else). Tickets stay
// encrypted with the first context's key whatever was chosen: that is why every certificate shares
// the configuration's client-certificate policy, so that a session resumed under another name is
// trusted for nothing more.

/// One certificate a server may present: its `SSL_CTX` (owned by the ``NativeContext``) and the
/// names it is chosen for (empty: the names its leaf is valid for).
struct ServerIdentity {
    let context: OpaquePointer
    let names: [ServerNamePattern]

    /// Whether this certificate serves `host` (lowercase ASCII): by an exact name, or by a wildcard.
    func serves(_ host: String, wildcard: Bool) -> Bool {
        guard names.isEmpty else { return names.contains { $0.matches(host, wildcard: wildcard) } }
        guard let leaf = SSL_CTX_get0_certificate(context) else { return false }
        // The subject's common name is never a name (RFC 6125 §6.4.4, as clients verify it).
        var flags = UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT)
        flags |= UInt32(wildcard ? X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS : X509_CHECK_FLAG_NO_WILDCARDS)
        return X509_check_host(leaf, host, host.utf8.count, flags, nil) == 1
    }
}

/// A name of ``TLSServerCertificate/serverNames``: a host name, or `*.` and a domain.
struct ServerNamePattern: Equatable {
    /// Lowercase, without a final dot.
    let name: String
    let isWildcard: Bool

    init(validating text: String) throws(WebSocketError) {
        func refuse(_ why: String) -> WebSocketError {
            .tls(TLSError(.configuration, reason: "server name \(String(reflecting: text)) \(why)"))
        }
        var name = text.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw refuse("is not printable ASCII (use the A-label form of an internationalized name)")
        }
        isWildcard = name.hasPrefix("*.")
        if isWildcard { name.removeFirst(2) }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard !name.isEmpty, name.utf8.count <= 253, labels.allSatisfy({ !$0.isEmpty && !$0.contains("*") }) else {
            throw refuse("is not a host name, nor `*.` and a domain")
        }
        self.name = name
    }

    /// `host` is this name (`wildcard` false), or one label and then this wildcard's domain.
    func matches(_ host: String, wildcard: Bool) -> Bool {
        guard wildcard == isWildcard else { return false }
        guard isWildcard else { return host == name }
        guard let dot = host.firstIndex(of: "."), dot != host.startIndex else { return false }
        return host[host.index(after: dot)...] == name
    }
}

extension NativeContext {
    /// The certificate for a session whose ClientHello named `host`: the first that names it
    /// exactly, else the first whose wildcard covers it, else the default.
    func identity(for host: String) -> ServerIdentity {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        for wildcard in [false, true] {
            if let found = serverIdentities.first(where: { $0.serves(host, wildcard: wildcard) }) { return found }
        }
        return serverIdentities[0]
    }

    /// The server name callback's work, on `ssl` made from this context: no TLS 1.2 ticket unless
    /// asked for, and the certificate for the client's name.
    func clientHelloRead(_ ssl: OpaquePointer) -> Int32 {
        if !issuesTLS12Tickets, SSL_version(ssl) == TLS1_2_VERSION {
            // A TLS 1.2 ticket holds the master secret: issued only when the configuration says so.
            _ = SSL_set_options(ssl, shim_SSL_OP_NO_TICKET())
        }
        guard serverIdentities.count > 1, let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) else {
            return shim_SSL_TLSEXT_ERR_OK()
        }
        let chosen = identity(for: String(cString: name)).context
        guard chosen != pointer else { return shim_SSL_TLSEXT_ERR_OK() }
        return SSL_set_SSL_CTX(ssl, chosen) == nil ? shim_SSL_TLSEXT_ERR_ALERT_FATAL() : shim_SSL_TLSEXT_ERR_OK()
    }
}

/// OpenSSL's server name callback (`SSL_CTX_set_tlsext_servername_callback`), called for every
/// ClientHello, with a name or without; its argument is the ``NativeContext``, which every session
/// keeps alive.
let chooseServerCertificate: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>?, UnsafeMutableRawPointer?) -> Int32 = {
    ssl, _, argument in
    guard let ssl, let argument else { return shim_SSL_TLSEXT_ERR_ALERT_FATAL() }
    return Unmanaged<NativeContext>.fromOpaque(argument).takeUnretainedValue().clientHelloRead(ssl)
}
#endif
