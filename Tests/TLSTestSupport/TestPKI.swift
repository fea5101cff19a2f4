// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import COpenSSL
import WebSocketCore
import WebSocketTLS

/// A certificate and its private key, as PEM, with the key's pin computed apart from the library's
/// own code (`i2d_PUBKEY` of the key and the one-shot `SHA256`, not the certificate's
/// `X509_PUBKEY`).
package struct TestIdentity: Sendable {
    package var certificatePEM: [UInt8]
    package var keyPEM: [UInt8]
    package var pin: String
    /// The certificate's DER encoding, and its SHA-256 (the certificate's fingerprint, as
    /// `openssl x509 -noout -fingerprint -sha256` prints it).
    package var certificateDER: [UInt8]
    package var fingerprint: [UInt8]

    /// The fingerprint in lowercase hex.
    package var fingerprintHex: String {
        fingerprint.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    package var certificate: PEMSource { .bytes(certificatePEM) }
    package var key: PEMSource { .bytes(keyPEM) }
}

/// The test certificates, made once per test process with OpenSSL's C API (no key is checked in,
/// and no `openssl` command runs): P-256 keys, SHA-256 signatures.
package struct TestPKI: Sendable {
    /// The root every good certificate chains to.
    package var ca: TestIdentity
    /// `localhost`, 127.0.0.1 and ::1, issued by ``ca``: the server's certificate.
    package var server: TestIdentity
    /// The same names, expired yesterday.
    package var expired: TestIdentity
    /// The same names, valid from tomorrow.
    package var notYetValid: TestIdentity
    /// Another root, and a `localhost` certificate it issued.
    package var otherCA: TestIdentity
    package var fromOtherCA: TestIdentity
    /// An intermediate CA under ``ca``, and a `localhost` certificate it issued (served with the
    /// intermediate: ``intermediateChainPEM``).
    package var intermediate: TestIdentity
    package var viaIntermediate: TestIdentity
    /// `w*.example.test` (a partial wildcard) and `*.wild.test`.
    package var wildcards: TestIdentity
    /// `alpha.example.test` and `*.beta.example.test` (`CN=sni-alternative`), issued by ``ca``: a
    /// server's second certificate, chosen by name.
    package var alternative: TestIdentity
    /// An address written as a DNS name (`DNS:127.0.0.1`), which is not an IP address entry.
    package var addressAsName: TestIdentity
    /// A client certificate (`CN=test-client`, clientAuth) issued by ``ca``, and one by ``otherCA``.
    package var client: TestIdentity
    package var clientFromOtherCA: TestIdentity

    /// Two self-signed `localhost` leaves (not authorities): a development server's certificate.
    package var selfSigned: TestIdentity
    package var otherSelfSigned: TestIdentity

    /// ``server``'s key encrypted with a password (AES-128-CBC).
    package var encryptedServerKeyPEM: [UInt8]

    package var intermediateChainPEM: [UInt8] { viaIntermediate.certificatePEM + intermediate.certificatePEM }

    package static let shared = TestPKI()

    /// The SHA-256 of `bytes` (OpenSSL's one-shot `SHA256`, not the library's digest code).
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = digest.withUnsafeMutableBufferPointer { out in bytes.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, out.baseAddress) } }
        return digest
    }

    private init() {
        let day = 86_400
        let ca = Issued.make(commonName: "WebSocketTLS Test CA", authority: true)
        self.ca = ca.identity
        let localNames = "DNS:localhost,IP:127.0.0.1,IP:::1"
        let server = Issued.make(commonName: "localhost", names: localNames, usage: "serverAuth", issuer: ca)
        self.server = server.identity
        encryptedServerKeyPEM = server.encryptedKeyPEM
        expired = Issued.make(commonName: "localhost", names: localNames, usage: "serverAuth",
                              validFrom: -10 * day, until: -day, issuer: ca).identity
        notYetValid = Issued.make(commonName: "localhost", names: localNames, usage: "serverAuth",
                                  validFrom: day, until: 10 * day, issuer: ca).identity
        let other = Issued.make(commonName: "Another Test CA", authority: true)
        otherCA = other.identity
        fromOtherCA = Issued.make(commonName: "localhost", names: localNames, usage: "serverAuth", issuer: other).identity
        let intermediateCA = Issued.make(commonName: "WebSocketTLS Test Intermediate", authority: true, issuer: ca)
        intermediate = intermediateCA.identity
        viaIntermediate = Issued.make(commonName: "localhost", names: localNames, usage: "serverAuth",
                                      issuer: intermediateCA).identity
        wildcards = Issued.make(commonName: "wildcards", names: "DNS:w*.example.test,DNS:*.wild.test", usage: "serverAuth",
                                issuer: ca).identity
        alternative = Issued.make(commonName: "sni-alternative", names: "DNS:alpha.example.test,DNS:*.beta.example.test",
                                  usage: "serverAuth", issuer: ca).identity
        addressAsName = Issued.make(commonName: "127.0.0.1", names: "DNS:127.0.0.1", usage: "serverAuth", issuer: ca).identity
        client = Issued.make(commonName: "test-client", usage: "clientAuth", issuer: ca).identity
        clientFromOtherCA = Issued.make(commonName: "intruder", usage: "clientAuth", issuer: other).identity
        selfSigned = Issued.make(commonName: "localhost", names: localNames, usage: "serverAuth").identity
        otherSelfSigned = Issued.make(commonName: "localhost", names: localNames, usage: "serverAuth").identity
    }
}

/// A certificate being made, with its key (freed with it).
private final class Issued {
    let certificate: OpaquePointer
    let key: OpaquePointer

    private init(certificate: OpaquePointer, key: OpaquePointer) {
        self.certificate = certificate
        self.key = key
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
    }

    /// A certificate valid from `validFrom` to `until` seconds from now, self-signed without an
    /// issuer.
    static func make(commonName: String, names: String? = nil, authority: Bool = false, usage: String? = nil,
                     validFrom: Int = -3_600, until: Int = 30 * 86_400, issuer: Issued? = nil) -> Issued {
        guard let key = shim_EVP_EC_gen("P-256"), let certificate = X509_new() else { fatalError("cannot make a key") }
        let made = Issued(certificate: certificate, key: key)
        check(X509_set_version(certificate, 2), "version")
        // Random serials: an issuer's certificates must not share one (RFC 5280 §4.1.2.2).
        check(ASN1_INTEGER_set(X509_get_serialNumber(certificate), Int.random(in: 1...Int.max)), "serial")
        check(X509_gmtime_adj(X509_getm_notBefore(certificate), validFrom) != nil ? 1 : 0, "notBefore")
        check(X509_gmtime_adj(X509_getm_notAfter(certificate), until) != nil ? 1 : 0, "notAfter")
        check(X509_set_pubkey(certificate, key), "public key")
        let subject = X509_get_subject_name(certificate)
        check(X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, commonName, -1, -1, 0), "subject")
        check(X509_set_issuer_name(certificate, issuer.map { X509_get_subject_name($0.certificate) } ?? subject), "issuer")
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.certificate ?? certificate, certificate, nil, nil, 0)
        made.add(NID_basic_constraints, authority ? "critical,CA:TRUE" : "critical,CA:FALSE", &context)
        made.add(NID_key_usage, authority ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature", &context)
        if let usage { made.add(NID_ext_key_usage, usage, &context) }
        if let names { made.add(NID_subject_alt_name, names, &context) }
        check(X509_sign(certificate, (issuer ?? made).key, EVP_sha256()) > 0 ? 1 : 0, "signature")
        return made
    }

    private func add(_ nid: Int32, _ value: String, _ context: inout X509V3_CTX) {
        guard let extensionValue = X509V3_EXT_conf_nid(nil, &context, nid, value) else { fatalError("extension \(value)") }
        defer { X509_EXTENSION_free(extensionValue) }
        Self.check(X509_add_ext(certificate, extensionValue, -1), "add extension")
    }

    private static func check(_ status: Int32, _ what: String) {
        if status != 1 { fatalError("test PKI: \(what) failed") }
    }

    var identity: TestIdentity {
        let der = self.der
        return TestIdentity(certificatePEM: Self.pem { PEM_write_bio_X509($0, certificate) },
                            keyPEM: Self.pem { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) },
                            pin: pin, certificateDER: der, fingerprint: TestPKI.sha256(der))
    }

    private var der: [UInt8] {
        let length = i2d_X509(certificate, nil)
        var der = [UInt8](repeating: 0, count: Int(length))
        _ = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_X509(certificate, &cursor)
        }
        return der
    }

    var encryptedKeyPEM: [UInt8] {
        Self.pem { bio in
            Array("password".utf8).withUnsafeBufferPointer { password in
                PEM_write_bio_PrivateKey(bio, key, EVP_aes_128_cbc(), password.baseAddress, Int32(password.count), nil, nil)
            }
        }
    }

    /// `sha256/` and the base64 of the SHA-256 of the key's DER SubjectPublicKeyInfo.
    private var pin: String {
        let length = i2d_PUBKEY(key, nil)
        var der = [UInt8](repeating: 0, count: Int(length))
        _ = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(key, &cursor)
        }
        return "sha256/" + Base64.encode(TestPKI.sha256(der))
    }

    private static func pem(_ write: (OpaquePointer) -> Int32) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { fatalError("BIO") }
        defer { BIO_free(bio) }
        check(write(bio), "PEM")
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = shim_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { fatalError("PEM") }
        return Array(UnsafeRawBufferPointer(start: data, count: Int(length)))
    }
}
#endif
