// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import TLSTestSupport

/// The tool on both ends over TLS: `serve --tls-cert --tls-key` and `connect wss://` with the test
/// PKI's files (made at test time), verification, pins, client certificates, and the refusals.
@Suite("TLS: serve --tls-cert and connect wss://")
struct TLSTests {
    /// The test PKI's PEM files in a temporary directory.
    final class Files {
        let directory: TemporaryDirectory
        let caCertificate, serverCertificate, serverKey, clientCertificate, clientKey, otherCA: String
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
