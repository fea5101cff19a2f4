// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import WebSocketTransport
internal import COpenSSL

// How a peer's chain is decided on when pins or a trust evaluator are set: OpenSSL's verification
// first (whose verdict is the evaluator's `defaultVerdict`), then the evaluator, then the pins.
//
// The decision is made inside OpenSSL's handshake, in the callback that replaces its chain
// verification (`SSL_CTX_set_cert_verify_callback`), rather than by the session after a handshake
// run with verification off:
//
// - It stays sans-I/O and never blocks: the callback runs inside `SSL_do_handshake`, which runs
//   inside the session's `receive`, on the caller's thread, with the bytes already there. The
//   evaluator is a synchronous function of what it is given. (An evaluator that needs I/O, such as
//   an OCSP lookup, would need OpenSSL's `SSL_set_retry_verify` and a status that waits for an
//   answer: not done.)
// - A handshake never runs with verification off: if the evaluator is not asked (a bug, a peer that
//   sends no certificate), OpenSSL's own verdict stands, and a rejection stops the handshake where
//   a failed verification does, with the alert it sends. A client has then sent neither its
//   certificate nor any application data to a server it refused.
// - The outcome is recorded in the session (`trustRejection`, `trustOverride`), which reports it
//   when OpenSSL says the verification failed (FailureClassification).

/// What a context adds to OpenSSL's verification of the peer's chain: its pins and its evaluator.
/// A class so that OpenSSL's verification callback can be given its address: the context that
/// installs the callback keeps it alive, and every session keeps its context alive.
final class PeerVerification: Sendable {
    let pins: PublicKeyPins
    let evaluator: TLSTrustEvaluator?

    init(pins: PublicKeyPins, evaluator: TLSTrustEvaluator?) {
        self.pins = pins
        self.evaluator = evaluator
    }

    /// Whether OpenSSL's verification needs replacing at all.
    var isNeeded: Bool { !pins.digests.isEmpty || evaluator != nil }
}

/// OpenSSL's chain verification callback (`SSL_CTX_set_cert_verify_callback`): 1 accepts the chain,
/// 0 fails the handshake with the store context's error as the alert's cause.
let verifyPeerChain: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { store, argument in
    guard let store, let argument else { return 0 }
    guard let ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
          let engine = SSL_get_ex_data(OpaquePointer(ssl), SessionEngine.exDataIndex)
    else {
        X509_STORE_CTX_set_error(store, X509_V_ERR_UNSPECIFIED)
        return 0
    }
    let verification = Unmanaged<PeerVerification>.fromOpaque(argument).takeUnretainedValue()
    return Unmanaged<SessionEngine>.fromOpaque(engine).takeUnretainedValue().decideTrust(store, verification) ? 1 : 0
}

extension SessionEngine {
    /// The verdict on the chain of `store`: OpenSSL's, then the evaluator's, then the pins'. A
    /// refusal is recorded in `trustRejection` (or left to the store's error, for OpenSSL's own), an
    /// overridden failure in `trustOverride`.
    func decideTrust(_ store: OpaquePointer, _ verification: PeerVerification) -> Bool {
        trustRejection = nil
        trustOverride = nil
        var failure: TLSError? = nil
        if X509_verify_cert(store) != 1 {
            // A negative result is a misuse of the store, not a verdict: still a failure.
            if X509_STORE_CTX_get_error(store) == X509_V_OK { X509_STORE_CTX_set_error(store, X509_V_ERR_UNSPECIFIED) }
            failure = verificationFailure(Int(X509_STORE_CTX_get_error(store)))
        }
        if let evaluator = verification.evaluator {
            let trust = TLSPeerTrust(certificateChain: Self.sentChain(store), serverName: isClient ? expectedName : nil,
                                     defaultVerdict: failure.map { .failed($0) } ?? .passed)
            switch evaluator.evaluate(trust) {
            case .accept:
                // The store keeps the failure's code: OpenSSL fails as it would have.
                if failure != nil { return false }
            case .acceptOverridingFailure(let reason):
                if let failure {
                    trustOverride = TLSTrustOverride(failure: failure, reason: reason)
                    if !isClient { issueNoTicket() }
                }
            case .reject(let reason):
                var text = "rejected by the trust evaluator: " + reason
                if let failure {
                    // The alert keeps the failure's cause (an expired certificate…).
                    text += "; the default verification had failed: \(failure.description)"
                } else {
                    X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED)
                }
                trustRejection = TLSError(.invalidCertificate, reason: text)
                return false
            }
        } else if failure != nil {
            return false
        }
        return checkPins(store, verification.pins)
    }

    /// The pins, against the verified chain; after an override, against the leaf alone, since the
    /// rest of a chain that did not verify proves nothing about the leaf (anyone can send a copy of
    /// a pinned CA's certificate with their own leaf).
    private func checkPins(_ store: OpaquePointer, _ pins: PublicKeyPins) -> Bool {
        guard !pins.digests.isEmpty else { return true }
        let matched: Bool
        let reason: String
        if trustOverride == nil {
            matched = X509_STORE_CTX_get0_chain(store).map { pins.matchesAny(of: $0) } ?? false
            reason = "the verified chain holds none of the pinned public keys"
        } else {
            matched = X509_STORE_CTX_get0_cert(store).map { pins.matches($0) } ?? false
            reason = "the leaf holds none of the pinned public keys (after an overridden verification failure, "
                + "only the leaf's key counts)"
        }
        guard matched else {
            trustOverride = nil
            X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION)
            trustRejection = TLSError(.pinMismatch, reason: reason)
            return false
        }
        return true
    }

    /// The certificates the peer sent, as DER, the leaf first. OpenSSL verifies its leaf with the
    /// whole chain as the untrusted set, the leaf included.
    private static func sentChain(_ store: OpaquePointer) -> [[UInt8]] {
        let leaf = X509_STORE_CTX_get0_cert(store)
        var chain: [[UInt8]] = []
        if let leaf, let der = CertificateDigest.der(of: leaf) { chain.append(der) }
        guard let sent = X509_STORE_CTX_get0_untrusted(store) else { return chain }
        let count = shim_sk_X509_num(sent)
        guard count > 0 else { return chain }
        for index in 0..<count {
            guard let certificate = shim_sk_X509_value(sent, index), !(index == 0 && certificate == leaf) else { continue }
            if let der = CertificateDigest.der(of: certificate) { chain.append(der) }
        }
        return chain
    }
}

/// Certificates as bytes, and digests of bytes.
enum CertificateDigest {
    /// The DER encoding of `certificate` (an `X509`).
    static func der(of certificate: OpaquePointer) -> [UInt8]? {
        encode { i2d_X509(certificate, $0) }
    }

    /// The DER of `encode`, an `i2d_` function: asked once for the length, once to write.
    static func encode(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
        let length = encode(nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return encode(&cursor)
        }
        return written == length ? der : nil
    }

    /// The SHA-256 digest of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: 32)
        var digestLength: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, out.baseAddress, &digestLength, EVP_sha256(), nil) }
        }
        guard status == 1, digestLength == 32 else { return nil }
        return digest
    }

}
#endif
