// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport
import WebSocketTLS

/// The TLS options of `connect` and `serve`, as a `TLSContext` for ``TransportOptions/tls``.
enum TLSOptions {
    /// `connect`'s options.
    static let clientOptions: Set<String> = ["--cacert", "--pin", "--pin-cert", "--cert", "--key", "--keylog"]
    static let clientFlags: Set<String> = ["--insecure"]
    /// `serve`'s options.
    static let serverOptions: Set<String> = ["--tls-cert", "--tls-key", "--client-ca", "--keylog"]

    /// The client context for a `wss` URL (verification against the system's roots, or the
    /// `--cacert` ones, pins added to it; or the certificates of `--pin-cert` alone), or `nil` for
    /// `ws`.
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
        let fingerprints = try parsed.values("--pin-cert").map { text throws(UsageError) in try fingerprint(text) }
        if !fingerprints.isEmpty {
            guard !parsed.flags.contains("--insecure") else {
                throw UsageError(message: "--pin-cert and --insecure exclude each other (--pin-cert accepts only that certificate)")
            }
            do throws(WebSocketError) {
                configuration.trustEvaluator = try .pinnedCertificates(sha256: fingerprints)
            } catch {
                throw UsageError(message: "--pin-cert: \(error)")
            }
        }
        if parsed.flags.contains("--insecure") {
            printError("websocket: warning: --insecure: the server's certificate is NOT verified; anyone on the path can read and change this connection")
            configuration.certificateVerification = .disabledInsecurely
        }
        configuration.unsafeKeyLog = keyLog(parsed)
        return try context(configuration)
    }

    /// `sha256:HEX`, the hex of a certificate's SHA-256 fingerprint as `openssl x509 -noout
    /// -fingerprint -sha256` prints it (pairs separated by colons) or without the colons.
    static func fingerprint(_ text: String) throws(UsageError) -> [UInt8] {
        let refusal = UsageError(message: "--pin-cert: expected sha256: and the 64 hex digits of a certificate's SHA-256 fingerprint, "
                                     + "got \(String(reflecting: text))")
        guard text.lowercased().hasPrefix("sha256:") else { throw refusal }
        let digits = Array(text.dropFirst("sha256:".count).utf8.filter { $0 != UInt8(ascii: ":") })
        guard digits.count == 64 else { throw refusal }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { throw refusal }
            bytes.append(byte)
        }
        return bytes
    }

    /// `--keylog FILE`, with its warning: the file will let anyone who reads it decrypt the traffic.
    private static func keyLog(_ parsed: Arguments) -> TLSKeyLog? {
        guard let path = parsed.value("--keylog") else { return nil }
        printError("websocket: warning: --keylog: the TLS secrets of every connection are appended to \(path); "
                       + "anyone who reads it can decrypt them")
        return .file(path)
    }

    /// The server context, when `--tls-cert` and `--tls-key` are given: the first pair is the
    /// default certificate, each further pair is chosen by the names its certificate is valid for
    /// (SNI).
    static func server(_ parsed: Arguments) throws(UsageError) -> TLSContext? {
        let certificates = parsed.values("--tls-cert"), keys = parsed.values("--tls-key")
        guard certificates.count == keys.count else {
            throw UsageError(message: "--tls-cert and --tls-key go together, one --tls-key after each --tls-cert")
        }
        guard let certificate = certificates.first, let key = keys.first else {
            for option in ["--client-ca", "--keylog"] where parsed.value(option) != nil {
                throw UsageError(message: "\(option) needs --tls-cert and --tls-key")
            }
            return nil
        }
        var configuration = TLSConfiguration.server(certificateChain: .file(certificate), privateKey: .file(key))
        configuration.additionalCertificates = zip(certificates, keys).dropFirst().map { certificate, key in
            TLSServerCertificate(certificateChain: .file(certificate), privateKey: .file(key))
        }
        let authorities = parsed.values("--client-ca")
        if !authorities.isEmpty { configuration.clientCertificates = .required(trustRoots: .only(authorities.map(PEMSource.file))) }
        configuration.unsafeKeyLog = keyLog(parsed)
        return try context(configuration)
    }

    /// Reads the certificates and keys again (SIGHUP), for the connections accepted from now on,
    /// and says on standard error what happened: on failure the certificates loaded before stay.
    static func reload(_ context: TLSContext) {
        let configuration = context.configuration
        let files = ([configuration.certificateChain].compactMap { $0 } + configuration.additionalCertificates.map(\.certificateChain))
            .map { "\($0)" }.joined(separator: ", ")
        do throws(WebSocketError) {
            try context.reload(configuration)
            printError("SIGHUP: reloaded the TLS certificates (\(files)) for new connections")
        } catch {
            printError("websocket: SIGHUP: cannot reload the TLS certificates: \(error); the certificates loaded before stay in use")
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
