// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import WebSocketTransport
internal import COpenSSL

// How OpenSSL's verdicts become TLSError kinds: what a user must know to fix the failure, with
// OpenSSL's own words as the reason.

extension SessionEngine {
    /// The error for a failed call whose `SSL_get_error` was `code`, from the errors it queued.
    func classify(_ code: Int32, errors: [OpenSSLError]) -> TLSError {
        let handshaking = status == .establishing
        let reason = OpenSSLErrorQueue.describe(errors, fallback: "OpenSSL error \(code)")
        // The SSL library's entry says what happened in TLS terms; others (ASN.1, X.509) add detail.
        guard let cause = errors.first(where: { $0.library == ERR_LIB_SSL }) else {
            return TLSError(handshaking ? .handshakeFailed : .protocolError, reason: reason)
        }
        let sslReason = cause.reason
        if sslReason == SSL_R_CERTIFICATE_VERIFY_FAILED {
            // The evaluator's or the pins' refusal, in their words; otherwise OpenSSL's.
            return trustRejection ?? verificationFailure(verifyResult)
        }
        if Self.notTLSReasons.contains(sslReason)
            || (Self.garbageRecordReasons.contains(sslReason) && handshaking && awaitingPeersFirstMessage)
        {
            let what = isClient ? "the server did not answer in TLS" : "the client did not speak TLS"
            return TLSError(.notTLS, reason: "\(what): \(reason)")
        }
        if Self.versionReasons.contains(sslReason) {
            return TLSError(.protocolVersion, reason: reason)
        }
        if sslReason == SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE {
            return TLSError(.peerCertificateRequired, reason: reason)
        }
        if sslReason == SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED {
            // TLS 1.3 tells a client after its own handshake completed.
            return TLSError(.handshakeFailed, reason: "the server requires a client certificate: \(reason)")
        }
        if Self.certificateAlertReasons.contains(sslReason) {
            return TLSError(.handshakeFailed, reason: "the peer refused our certificate: \(reason)")
        }
        return TLSError(handshaking ? .handshakeFailed : .protocolError, reason: reason)
    }

    /// The error for a chain that failed verification with X509_V_ERR `result`.
    func verificationFailure(_ result: Int) -> TLSError {
        let reason = X509_verify_cert_error_string(result).map { String(cString: $0) } ?? "verification error \(result)"
        switch Int32(truncatingIfNeeded: result) {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
             X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return TLSError(.unknownIssuer, reason: reason)
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            return TLSError(.nameMismatch(expected: expectedName ?? ""), reason: reason)
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return TLSError(.expired, reason: reason)
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return TLSError(.notYetValid, reason: reason)
        default:
            return TLSError(.invalidCertificate, reason: reason)
        }
    }

    /// Reasons that mean the bytes were not TLS at all: plain HTTP, a proxy request, a record whose
    /// version bytes are not TLS's.
    static let notTLSReasons: Set<Int32> = [SSL_R_WRONG_VERSION_NUMBER, SSL_R_HTTP_REQUEST, SSL_R_HTTPS_PROXY_REQUEST]

    /// Reasons that mean garbage when the peer's very first record brings them: a record header
    /// that only looks like one.
    static let garbageRecordReasons: Set<Int32> = [
        SSL_R_PACKET_LENGTH_TOO_LONG, SSL_R_ENCRYPTED_LENGTH_TOO_LONG, SSL_R_RECORD_LENGTH_MISMATCH,
        SSL_R_UNKNOWN_PROTOCOL, SSL_R_UNEXPECTED_RECORD, SSL_R_BAD_RECORD_TYPE,
    ]

    /// Reasons that mean no version both sides accept, ours or the peer's protocol_version alert.
    static let versionReasons: Set<Int32> = [
        SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_TLSV1_ALERT_PROTOCOL_VERSION, SSL_R_VERSION_TOO_LOW,
        SSL_R_VERSION_TOO_HIGH, SSL_R_WRONG_SSL_VERSION, SSL_R_NO_PROTOCOLS_AVAILABLE,
        SSL_R_UNSUPPORTED_SSL_VERSION,
    ]

    /// The alerts a peer sends when it refuses our certificate (RFC 8446 §6.2).
    static let certificateAlertReasons: Set<Int32> = [
        SSL_R_SSLV3_ALERT_BAD_CERTIFICATE, SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE,
        SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED, SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED,
        SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN, SSL_R_TLSV1_ALERT_UNKNOWN_CA,
        SSL_R_TLSV1_ALERT_ACCESS_DENIED,
    ]
}
#endif
