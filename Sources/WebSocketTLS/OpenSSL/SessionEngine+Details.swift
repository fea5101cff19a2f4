// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
internal import COpenSSL

// What a session can tell about the agreement, once its handshake completed.
extension SessionEngine {
    private var isPastHandshake: Bool {
        switch status {
        case .established, .ended: return true
        case .establishing, .failed: return false
        }
    }

    var negotiatedApplicationProtocol: String? {
        guard isPastHandshake else { return nil }
        var name: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(sslPointer, &name, &length)
        guard let name, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: name, count: Int(length)), as: UTF8.self)
    }

    var negotiatedVersion: TLSVersion? {
        guard isPastHandshake else { return nil }
        switch SSL_version(sslPointer) {
        case TLS1_2_VERSION: return .v1_2
        case TLS1_3_VERSION: return .v1_3
        default: return nil
        }
    }

    var peerCertificateSubject: String? {
        guard isPastHandshake, verifiesPeer, verifyResult == Int(X509_V_OK) || trustOverride != nil,
              let certificate = SSL_get0_peer_certificate(sslPointer),
              let subject = X509_get_subject_name(certificate)
        else { return nil }
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard X509_NAME_print_ex(bio, subject, 0, shim_XN_FLAG_RFC2253()) >= 0 else { return nil }
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = shim_BIO_get_mem_data(bio, &data)
        guard length >= 0, let data else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    var acceptedTrustOverride: TLSTrustOverride? {
        isPastHandshake ? trustOverride : nil
    }

    var requestedServerName: String? {
        guard !isClient, let name = SSL_get_servername(sslPointer, TLSEXT_NAMETYPE_host_name) else { return nil }
        return String(cString: name)
    }
}
#endif
