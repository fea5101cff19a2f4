// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The certificate authorities that verify a peer's chain.
///
/// ```swift
/// configuration.trustRoots = .systemAnd([.file("/etc/company/ca.pem")])   // a private CA as well
/// configuration.trustRoots = .only([.file("/etc/company/ca.pem")])        // only the private CA
/// ```
public enum TLSTrustRoots: Sendable, Hashable {
    /// The operating system's trust store: OpenSSL's default locations (on Debian and Ubuntu,
    /// `/etc/ssl/certs`, from the `ca-certificates` package; `SSL_CERT_FILE` and `SSL_CERT_DIR` override
    /// them).
    case system
    /// The system's trust store and these certificates (each source holds one or more).
    case systemAnd([PEMSource])
    /// These certificates and no others: the system's roots are not trusted.
    case only([PEMSource])

    /// The certificates added to or replacing the system's.
    var customRoots: [PEMSource] {
        switch self {
        case .system: return []
        case .systemAnd(let roots), .only(let roots): return roots
        }
    }

    /// Whether the system's trust store is used.
    var includesSystemRoots: Bool {
        switch self {
        case .system, .systemAnd: return true
        case .only: return false
        }
    }
}
