// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// (Server) A certificate a server presents to the clients that ask for one of its names (SNI), in
/// ``TLSConfiguration/additionalCertificates``.
///
/// ```swift
/// var configuration = TLSConfiguration.server(certificateChain: .file("default/fullchain.pem"),
///                                             privateKey: .file("default/key.pem"))
/// configuration.additionalCertificates = [
///     TLSServerCertificate(certificateChain: .file("api/fullchain.pem"), privateKey: .file("api/key.pem")),
///     TLSServerCertificate(serverNames: ["*.example.net"],
///                          certificateChain: .file("net/fullchain.pem"), privateKey: .file("net/key.pem")),
/// ]
/// ```
public struct TLSServerCertificate: Sendable, Hashable {
    /// The names this certificate is chosen for: host names (`api.example.com`) or wildcards of one
    /// whole leftmost label (`*.example.com`, which covers `a.example.com` but neither
    /// `example.com` nor `a.b.example.com`), compared without regard to case. Empty (the default):
    /// the names the certificate itself is valid for (its DNS names, wildcards included), as a
    /// client would verify them.
    public var serverNames: [String]
    /// The chain, the leaf first, then its intermediates.
    public var certificateChain: PEMSource
    /// The leaf's private key; it must match the leaf.
    public var privateKey: PEMSource

    /// A certificate chosen for `serverNames` (empty: for the names it is valid for).
    public init(serverNames: [String] = [], certificateChain: PEMSource, privateKey: PEMSource) {
        self.serverNames = serverNames
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }
}
