// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import WebSocketTransport
internal import COpenSSL

/// The SHA-256 digests of the SubjectPublicKeyInfo a client accepts (``TLSConfiguration/pinnedPublicKeys``).
///
/// A class so that OpenSSL's verification callback can be given its address: the context that
/// installs the callback keeps it alive, and every session keeps its context alive.
final class PublicKeyPins: Sendable {
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
            guard let certificate = shim_sk_X509_value(chain, index),
                  let digest = Self.publicKeyDigest(of: certificate)
            else { continue }
            if digests.contains(digest) { return true }
        }
        return false
    }

    /// The SHA-256 of a certificate's DER SubjectPublicKeyInfo (RFC 7469 §2.4).
    static func publicKeyDigest(of certificate: OpaquePointer) -> [UInt8]? {
        guard let publicKey = X509_get_X509_PUBKEY(certificate) else { return nil }
        let length = i2d_X509_PUBKEY(publicKey, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_X509_PUBKEY(publicKey, &cursor)
        }
        guard written == length else { return nil }
        var digest = [UInt8](repeating: 0, count: 32)
        var digestLength: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { out in
            der.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, out.baseAddress, &digestLength, EVP_sha256(), nil) }
        }
        guard status == 1, digestLength == 32 else { return nil }
        return digest
    }
}

/// Replaces OpenSSL's chain verification when pins are set: the normal verification first, whose
/// verdict stands when it fails, then the pins against the verified chain. A chain without a pinned
/// key gets X509_V_ERR_APPLICATION_VERIFICATION, which the session reports as a pin mismatch.
let verifyChainThenPins: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { storeContext, argument in
    guard let storeContext, let argument else { return 0 }
    let verdict = X509_verify_cert(storeContext)
    guard verdict == 1 else { return verdict }
    let pins = Unmanaged<PublicKeyPins>.fromOpaque(argument).takeUnretainedValue()
    guard let chain = X509_STORE_CTX_get0_chain(storeContext), pins.matchesAny(of: chain) else {
        X509_STORE_CTX_set_error(storeContext, X509_V_ERR_APPLICATION_VERIFICATION)
        return 0
    }
    return 1
}
#endif
