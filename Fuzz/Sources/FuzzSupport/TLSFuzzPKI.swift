// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import CFuzzOpenSSL
import WebSocketCore
import WebSocketTLS

/// The TLS targets' certificates, made once per process with OpenSSL's C API: a CA, a `localhost`
/// server certificate, a second server certificate (`alt.fuzz.test`, chosen by server name) and a
/// client certificate it issued, as PEM.
struct TLSFuzzPKI: Sendable {
    struct Identity: Sendable {
        var certificate: [UInt8]
        var key: [UInt8]
    }

    var ca: Identity
    var server: Identity
    var alternative: Identity
    var client: Identity
    /// The CA's public-key pin (`sha256/BASE64`), for the pinning client.
    var caPin: String
    /// The CA's certificate, as DER.
    var caCertificateDER: [UInt8]

    static let shared = TLSFuzzPKI()

    private init() {
        let (caCertificate, caKey) = Self.issue(commonName: "Fuzz CA", names: nil, authority: true, issuer: nil)
        ca = Self.export(caCertificate, caKey)
        caPin = Self.pin(caKey)
        caCertificateDER = Self.der(caCertificate)
        let (serverCertificate, serverKey) = Self.issue(commonName: "localhost", names: "DNS:localhost,IP:127.0.0.1",
                                                        authority: false, issuer: (caCertificate, caKey))
        server = Self.export(serverCertificate, serverKey)
        let (alternativeCertificate, alternativeKey) = Self.issue(commonName: "alternative", names: "DNS:alt.fuzz.test",
                                                                  authority: false, issuer: (caCertificate, caKey))
        alternative = Self.export(alternativeCertificate, alternativeKey)
        let (clientCertificate, clientKey) = Self.issue(commonName: "fuzz-client", names: nil, authority: false,
                                                        issuer: (caCertificate, caKey))
        client = Self.export(clientCertificate, clientKey)
        for pointer in [caCertificate, serverCertificate, alternativeCertificate, clientCertificate] { X509_free(pointer) }
        for pointer in [caKey, serverKey, alternativeKey, clientKey] { EVP_PKEY_free(pointer) }
    }

    private static func issue(commonName: String, names: String?, authority: Bool,
                              issuer: (certificate: OpaquePointer, key: OpaquePointer)?) -> (OpaquePointer, OpaquePointer) {
        guard let key = fuzz_EVP_EC_gen("P-256"), let certificate = X509_new() else { fatalError("fuzz PKI: no key") }
        var ok = X509_set_version(certificate, 2) == 1
        ok = ok && ASN1_INTEGER_set(X509_get_serialNumber(certificate), Int.random(in: 1...Int.max)) == 1
        ok = ok && X509_gmtime_adj(X509_getm_notBefore(certificate), -3_600) != nil
        ok = ok && X509_gmtime_adj(X509_getm_notAfter(certificate), 365 * 86_400) != nil
        ok = ok && X509_set_pubkey(certificate, key) == 1
        let subject = X509_get_subject_name(certificate)
        ok = ok && X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1
        ok = ok && X509_set_issuer_name(certificate, issuer.map { X509_get_subject_name($0.certificate) } ?? subject) == 1
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.certificate ?? certificate, certificate, nil, nil, 0)
        var extensions = [(NID_basic_constraints, authority ? "critical,CA:TRUE" : "critical,CA:FALSE"),
                          (NID_key_usage, authority ? "critical,keyCertSign" : "critical,digitalSignature")]
        if let names { extensions.append((NID_subject_alt_name, names)) }
        for (nid, value) in extensions {
            guard let made = X509V3_EXT_conf_nid(nil, &context, nid, value) else { fatalError("fuzz PKI: \(value)") }
            ok = ok && X509_add_ext(certificate, made, -1) == 1
            X509_EXTENSION_free(made)
        }
        ok = ok && X509_sign(certificate, issuer?.key ?? key, EVP_sha256()) > 0
        guard ok else { fatalError("fuzz PKI: cannot make \(commonName)") }
        return (certificate, key)
    }

    private static func der(_ certificate: OpaquePointer) -> [UInt8] {
        var der = [UInt8](repeating: 0, count: Int(max(0, i2d_X509(certificate, nil))))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_X509(certificate, &cursor)
        }
        guard written == der.count, written > 0 else { fatalError("fuzz PKI: DER") }
        return der
    }

    private static func pin(_ key: OpaquePointer) -> String {
        let length = i2d_PUBKEY(key, nil)
        var der = [UInt8](repeating: 0, count: Int(max(0, length)))
        _ = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(key, &cursor)
        }
        var digest = [UInt8](repeating: 0, count: 32)
        var digestLength: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { out in
            der.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, out.baseAddress, &digestLength, EVP_sha256(), nil) }
        }
        guard status == 1 else { fatalError("fuzz PKI: digest") }
        // OpenSSL's base64 (the core's is internal to the library's package).
        var text = [UInt8](repeating: 0, count: 4 * ((digest.count + 2) / 3) + 1)
        let written = EVP_EncodeBlock(&text, digest, Int32(digest.count))
        return "sha256/" + String(decoding: text.prefix(Int(written)), as: UTF8.self)
    }

    private static func export(_ certificate: OpaquePointer, _ key: OpaquePointer) -> Identity {
        Identity(certificate: pem { PEM_write_bio_X509($0, certificate) },
                 key: pem { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) })
    }

    private static func pem(_ write: (OpaquePointer) -> Int32) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()), write(bio) == 1 else { fatalError("fuzz PKI: PEM") }
        defer { BIO_free(bio) }
        var bytes = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
        let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
        guard read == bytes.count else { fatalError("fuzz PKI: PEM") }
        return bytes
    }
}
