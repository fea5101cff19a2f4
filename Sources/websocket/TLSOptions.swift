// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport
import WebSocketTLS

/// The TLS options of `connect` and `serve`, as a `TLSContext` for ``TransportOptions/tls``.
enum TLSOptions {
    /// `connect`'s options.
    static let clientOptions: Set<String> = ["--cacert", "--pin", "--cert", "--key"]
    static let clientFlags: Set<String> = ["--insecure"]
    /// `serve`'s options.
    static let serverOptions: Set<String> = ["--tls-cert", "--tls-key", "--client-ca"]

    /// The client context for a `wss` URL (verification against the system's roots, or the
    /// `--cacert` ones, pins added to it), or `nil` for `ws`.
    static func client(_ parsed: Arguments, isSecure: Bool) throws(UsageError) -> TLSContext? {
        let given = !clientOptions.allSatisfy { parsed.values($0).isEmpty } || parsed.flags.contains("--insecure")
        guard isSecure else {
            if given { throw UsageError(message: "TLS options need a wss:// URL") }
            return nil
        }
        var configuration = TLSConfiguration.client()
        let authorities = parsed.values("--cacert")
        if !authorities.isEmpty { configuration.trustRoots = .only(authorities.map(PEMSource.file)) }
        configuration.pinnedPublicKeys = parsed.values("--pin")
        switch (parsed.value("--cert"), parsed.value("--key")) {
        case (let certificate?, let key?):
            configuration.certificateChain = .file(certificate)
            configuration.privateKey = .file(key)
        case (nil, nil):
            break
        default:
            throw UsageError(message: "--cert and --key go together")
        }
        if parsed.flags.contains("--insecure") {
            printError("websocket: warning: --insecure: the server's certificate is NOT verified; anyone on the path can read and change this connection")
            configuration.certificateVerification = .disabledInsecurely
        }
        return try context(configuration)
    }

    /// The server context, when `--tls-cert` and `--tls-key` are given.
    static func server(_ parsed: Arguments) throws(UsageError) -> TLSContext? {
        switch (parsed.value("--tls-cert"), parsed.value("--tls-key")) {
        case (nil, nil):
            if parsed.value("--client-ca") != nil { throw UsageError(message: "--client-ca needs --tls-cert and --tls-key") }
            return nil
        case (let certificate?, let key?):
            var configuration = TLSConfiguration.server(certificateChain: .file(certificate), privateKey: .file(key))
            let authorities = parsed.values("--client-ca")
            if !authorities.isEmpty { configuration.clientCertificates = .required(trustRoots: .only(authorities.map(PEMSource.file))) }
            return try context(configuration)
        default:
            throw UsageError(message: "--tls-cert and --tls-key go together")
        }
    }

    /// A configuration that does not load (a missing file, a key that does not match) is the user's
    /// to fix: a usage error with the TLS library's reason.
    private static func context(_ configuration: TLSConfiguration) throws(UsageError) -> TLSContext {
        do throws(WebSocketError) {
            return try TLSContext(configuration)
        } catch {
            throw UsageError(message: error.description)
        }
    }
}
