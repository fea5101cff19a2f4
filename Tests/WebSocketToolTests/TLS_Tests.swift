// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import TransportTestSupport
import TLSTestSupport

/// The tool on both ends over TLS: `serve --tls-cert --tls-key` and `connect wss://` with the test
/// PKI's files (made at test time), verification, pins, client certificates, and the refusals.
@Suite("TLS: serve --tls-cert and connect wss://", .onTestThreads)
struct TLSTests {
    /// The test PKI's PEM files in a temporary directory.
    final class Files {
        let directory: TemporaryDirectory
        let caCertificate, serverCertificate, serverKey, clientCertificate, clientKey, otherCA: String
        let selfSignedCertificate, selfSignedKey: String
        let serverPin: String

        init() throws {
            let pki = TestPKI.shared
            directory = try TemporaryDirectory()
            caCertificate = try directory.write("ca.pem", pki.ca.certificatePEM)
            serverCertificate = try directory.write("server.pem", pki.server.certificatePEM)
            serverKey = try directory.write("server-key.pem", pki.server.keyPEM)
            clientCertificate = try directory.write("client.pem", pki.client.certificatePEM)
            clientKey = try directory.write("client-key.pem", pki.client.keyPEM)
            otherCA = try directory.write("other-ca.pem", pki.otherCA.certificatePEM)
            selfSignedCertificate = try directory.write("self-signed.pem", pki.selfSigned.certificatePEM)
            selfSignedKey = try directory.write("self-signed-key.pem", pki.selfSigned.keyPEM)
            serverPin = pki.server.pin
        }
    }

    @Test("wss:// with --cacert: verified, lines echoed, exit 0")
    func verified() throws {
        let files = try Files()
        let serve = try ServeProcess(["--echo", "--tls-cert", files.serverCertificate, "--tls-key", files.serverKey], secure: true)
        let run = try runTool(["connect", serve.url(), "--cacert", files.caCertificate], input: "secret\n")
        #expect(run.status == 0, "\(run.transcript)\n\(serve.tool.transcript)")
        #expect(run.stdoutLines == ["secret"])
    }

    @Test("wss:// against a certificate the trusted CA did not issue: the handshake fails, exit 4")
    func untrusted() throws {
        let files = try Files()
        let serve = try ServeProcess(["--echo", "--tls-cert", files.serverCertificate, "--tls-key", files.serverKey], secure: true)
        let run = try runTool(["connect", serve.url(), "--cacert", files.otherCA], input: "not sent\n")
        #expect(run.status == 4, "\(run.transcript)")
    }

    @Test("-k / --insecure: connects without verification, with a warning on stderr", arguments: ["-k", "--insecure"])
    func insecure(flag: String) throws {
        let files = try Files()
        let serve = try ServeProcess(["--echo", "--tls-cert", files.serverCertificate, "--tls-key", files.serverKey], secure: true)
        let run = try runTool(["connect", serve.url(), flag], input: "anyway\n")
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.stdoutLines == ["anyway"])
        #expect(run.stderr.contains("warning"), "\(run.transcript)")
    }

    @Test("--pin: the server key's pin passes; another pin fails the handshake, exit 4")
    func pins() throws {
        let files = try Files()
        let serve = try ServeProcess(["--echo", "--tls-cert", files.serverCertificate, "--tls-key", files.serverKey], secure: true)
        let pinned = try runTool(["connect", serve.url(), "--cacert", files.caCertificate, "--pin", files.serverPin], input: "pinned\n")
        #expect(pinned.status == 0, "\(pinned.transcript)")
        let wrong = "sha256/" + String(repeating: "A", count: 43) + "="
        let refused = try runTool(["connect", serve.url(), "--cacert", files.caCertificate, "--pin", wrong], input: "no\n")
        #expect(refused.status == 4, "\(refused.transcript)")
    }

    @Test("--pin-cert: a self-signed server whose fingerprint matches is accepted; another fingerprint fails, exit 4, its reason on stderr")
    func pinnedCertificate() throws {
        let files = try Files()
        let pki = TestPKI.shared
        let serve = try ServeProcess(["--echo", "--tls-cert", files.selfSignedCertificate, "--tls-key", files.selfSignedKey], secure: true)
        // As `openssl x509 -noout -fingerprint -sha256` prints it: uppercase pairs and colons.
        let printed = "SHA256:" + pki.selfSigned.fingerprint.map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }
            .map { $0.uppercased() }.joined(separator: ":")
        for fingerprint in ["sha256:" + pki.selfSigned.fingerprintHex, printed] {
            let pinned = try runTool(["connect", serve.url(), "--pin-cert", fingerprint], input: "pinned\n")
            #expect(pinned.status == 0, "\(pinned.transcript)")
            #expect(pinned.stdoutLines == ["pinned"])
        }
        // Without it, the self-signed certificate fails verification.
        let unpinned = try runTool(["connect", serve.url()], input: "no\n")
        #expect(unpinned.status == 4, "\(unpinned.transcript)")
        let other = try runTool(["connect", serve.url(), "--pin-cert", "sha256:" + pki.otherSelfSigned.fingerprintHex], input: "no\n")
        #expect(other.status == 4, "\(other.transcript)")
        #expect(other.stdout.isEmpty)
        #expect(other.stderr.contains("rejected by the trust evaluator"), "\(other.transcript)")
        #expect(other.stderr.contains(pki.selfSigned.fingerprintHex), "\(other.transcript)")
    }

    @Test("--pin-cert misuse: a malformed fingerprint, or with --insecure: usage errors, exit 2", arguments: [
        ["--pin-cert", "sha256:abcd"], ["--pin-cert", "md5:" + String(repeating: "0", count: 64)],
        ["--pin-cert", "sha256:" + String(repeating: "g", count: 64)],
        ["--pin-cert", "sha256:" + String(repeating: "0", count: 64), "--insecure"],
    ])
    func pinnedCertificateMisuse(arguments: [String]) throws {
        let run = try runTool(["connect", "wss://127.0.0.1:1/"] + arguments)
        #expect(run.status == 2, "\(run.transcript)")
        #expect(run.stderrLines.first?.contains("--pin-cert") == true, "\(run.transcript)")
    }

    @Test("--keylog on both ends: a warning each, files created 0600 with the same secrets")
    func keyLog() throws {
        let files = try Files()
        let serverLog = files.directory.path + "/server-keys.txt", clientLog = files.directory.path + "/client-keys.txt"
        let serve = try ServeProcess(["--echo", "--tls-cert", files.serverCertificate, "--tls-key", files.serverKey,
                                      "--keylog", serverLog], secure: true)
        let run = try runTool(["connect", serve.url(), "--cacert", files.caCertificate, "--keylog", clientLog], input: "logged\n")
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.stdoutLines == ["logged"])
        #expect(run.stderr.contains("warning: --keylog"), "\(run.transcript)")
        #expect(serve.tool.stderr.text.contains("warning: --keylog"), "\(serve.tool.transcript)")
        // The echo came after the server's handshake, which wrote its lines.
        let client = try TemporaryDirectory.contents(of: clientLog), server = try TemporaryDirectory.contents(of: serverLog)
        #expect(client.mode == 0o600)
        #expect(server.mode == 0o600)
        let clientLines = client.text.split(separator: "\n"), serverLines = server.text.split(separator: "\n")
        #expect(clientLines.count == 5, "\(client.text)")
        #expect(clientLines.contains { $0.hasPrefix("CLIENT_TRAFFIC_SECRET_0 ") })
        #expect(Set(clientLines) == Set(serverLines))
    }

    @Test("--keylog without TLS: usage errors, exit 2")
    func keyLogWithoutTLS() throws {
        let connect = try runTool(["connect", "ws://127.0.0.1:1/", "--keylog", "/tmp/never-written"])
        #expect(connect.status == 2, "\(connect.transcript)")
        let serve = try runTool(["serve", "--port", "0", "--keylog", "/tmp/never-written"])
        #expect(serve.status == 2, "\(serve.transcript)")
        #expect(serve.stderrLines.first?.contains("--keylog needs --tls-cert") == true, "\(serve.transcript)")
    }

    @Test("serve --client-ca: a client with a certificate from that CA connects; one without is refused")
    func clientCertificates() throws {
        let files = try Files()
        let serve = try ServeProcess(["--echo", "--tls-cert", files.serverCertificate, "--tls-key", files.serverKey,
                                      "--client-ca", files.caCertificate], secure: true)
        let run = try runTool(["connect", serve.url(), "--cacert", files.caCertificate,
                               "--cert", files.clientCertificate, "--key", files.clientKey], input: "mutual\n")
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.stdoutLines == ["mutual"])
        let without = try runTool(["connect", serve.url(), "--cacert", files.caCertificate], input: "no\n")
        #expect(without.status != 0, "\(without.transcript)")
        #expect(without.stdout.isEmpty, "\(without.transcript)")
    }

    @Test("TLS options with a ws:// URL, or --tls-cert without --tls-key: usage errors, exit 2")
    func misuse() throws {
        let files = try Files()
        let run = try runTool(["connect", "ws://127.0.0.1:1/", "--cacert", files.caCertificate])
        #expect(run.status == 2, "\(run.transcript)")
        let serve = try runTool(["serve", "--port", "0", "--tls-cert", files.serverCertificate])
        #expect(serve.status == 2, "\(serve.transcript)")
        #expect(serve.stderrLines.first?.contains("--tls-key") == true, "\(serve.transcript)")
    }
}
