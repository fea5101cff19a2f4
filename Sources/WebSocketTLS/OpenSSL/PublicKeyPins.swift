// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import WebSocketTransport
internal import COpenSSL

/// The SHA-256 digests of the SubjectPublicKeyInfo a client accepts (``TLSConfiguration/pinnedPublicKeys``).
///
/// Held by the context's ``PeerVerification``, which OpenSSL's verification callback is given.
struct PublicKeyPins: Sendable {
    let digests: [[UInt8]]

    static let prefix = "sha256/"

    /// - Throws: ``TLSError/Kind/configuration`` for a pin that is not `sha256/` and the padded
    ///   base64 of 32 bytes.
    init(parsing pins: [String]) throws(WebSocketError) {
        var digests: [[UInt8]] = []
        for pin in pins {
            guard pin.hasPrefix(Self.prefix), let digest = Base64.decode(pin.dropFirst(Self.prefix.count)),
                  digest.count == 32
            else {
                throw .tls(TLSError(.configuration, reason: "pinned public key \(String(reflecting: pin)) is not "
                                        + "\"sha256/\" and the base64 of a 32-byte SHA-256 digest"))
            }
            digests.append(digest)
        }
        self.digests = digests
    }

    /// Whether a certificate of `chain` (a `STACK_OF(X509)`) has a pinned key.
    func matchesAny(of chain: OpaquePointer) -> Bool {
        let count = shim_sk_X509_num(chain)
        guard count > 0 else { return false }
        for index in 0..<count {
            if let certificate = shim_sk_X509_value(chain, index), matches(certificate) { return true }
        }
        return false
    }

    /// Whether `certificate` has a pinned key.
    func matches(_ certificate: OpaquePointer) -> Bool {
        guard let digest = Self.publicKeyDigest(of: certificate) else { return false }
        return digests.contains(digest)
    }

    /// The SHA-256 of a certificate's DER SubjectPublicKeyInfo (RFC 7469 §2.4).
    static func publicKeyDigest(of certificate: OpaquePointer) -> [UInt8]? {
        guard let publicKey = X509_get_X509_PUBKEY(certificate),
              let der = CertificateDigest.encode({ i2d_X509_PUBKEY(publicKey, $0) })
        else { return nil }
        return CertificateDigest.sha256(der)
    }
}
#endif
