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

/// `serve` as a server that stays up: SIGHUP reads `--tls-cert` and `--tls-key` again, and repeated
/// pairs choose a certificate by the client's server name.
@Suite("TLS: serve reloads on SIGHUP, repeated --tls-cert", .onTestThreads)
struct TLSReloadTests {
    /// `serve --echo` with a `--tls-cert`/`--tls-key` pair per identity, written as `NAME.pem` and
    /// `NAME-key.pem`.
    static func serve(_ identities: [(name: String, identity: TestIdentity)], in files: TLSTests.Files) throws -> ServeProcess {
        var arguments = ["--echo"]
        for (name, identity) in identities {
            arguments += ["--tls-cert", try files.directory.write(name + ".pem", identity.certificatePEM),
                          "--tls-key", try files.directory.write(name + "-key.pem", identity.keyPEM)]
        }
        return try ServeProcess(arguments, secure: true)
    }

    @Test("SIGHUP: new connections get the new certificate; a bad one is reported and the old one stays")
    func reload() throws {
        let pki = TestPKI.shared
        let files = try TLSTests.Files()
        let serve = try Self.serve([("live", pki.server)], in: files)
        let before = try runTool(["connect", serve.url(), "--cacert", files.caCertificate], input: "before\n")
        #expect(before.status == 0, "\(before.transcript)\n\(serve.tool.transcript)")

        _ = try files.directory.write("live.pem", pki.fromOtherCA.certificatePEM)
        _ = try files.directory.write("live-key.pem", pki.fromOtherCA.keyPEM)
        serve.tool.signal(SIGHUP)
        try #require(serve.tool.waitForStderr(containing: "SIGHUP: reloaded the TLS certificates"), "\(serve.tool.transcript)")
        let renewed = try runTool(["connect", serve.url(), "--cacert", files.otherCA], input: "renewed\n")
        #expect(renewed.status == 0, "\(renewed.transcript)\n\(serve.tool.transcript)")
        #expect(renewed.stdoutLines == ["renewed"])
        let old = try runTool(["connect", serve.url(), "--cacert", files.caCertificate], input: "no\n")
        #expect(old.status == 4, "\(old.transcript)")

        // A key that does not match its certificate: reported, and the certificate loaded before stays.
        _ = try files.directory.write("live-key.pem", pki.server.keyPEM)
        serve.tool.signal(SIGHUP)
        try #require(serve.tool.waitForStderr(containing: "cannot reload the TLS certificates"), "\(serve.tool.transcript)")
        #expect(serve.tool.stderr.text.contains("does not match"), "\(serve.tool.transcript)")
        #expect(serve.tool.stderr.text.contains("the certificates loaded before stay in use"), "\(serve.tool.transcript)")
        let kept = try runTool(["connect", serve.url(), "--cacert", files.otherCA], input: "kept\n")
        #expect(kept.status == 0, "\(kept.transcript)\n\(serve.tool.transcript)")
        #expect(kept.stdoutLines == ["kept"])
        serve.tool.signal(SIGTERM)
        #expect(serve.tool.waitForExit() == 0, "\(serve.tool.transcript)")
    }

    @Test("Repeated --tls-cert/--tls-key: the client's server name chooses; no name gets the first")
    func serverNames() throws {
        let pki = TestPKI.shared
        let files = try TLSTests.Files()
        // The first (the default) is not valid for localhost; the second is.
        let serve = try Self.serve([("alternative", pki.alternative), ("localhost", pki.server)], in: files)
        let named = try runTool(["connect", "wss://localhost:\(serve.port)/", "--cacert", files.caCertificate], input: "named\n")
        #expect(named.status == 0, "\(named.transcript)\n\(serve.tool.transcript)")
        #expect(named.stdoutLines == ["named"])
        // An address sends no name: the default, issued for alpha.example.test, fails verification.
        let unnamed = try runTool(["connect", serve.url(), "--cacert", files.caCertificate], input: "no\n")
        #expect(unnamed.status == 4, "\(unnamed.transcript)")
        #expect(unnamed.stderr.contains("127.0.0.1"), "\(unnamed.transcript)")
    }

    @Test("--tls-cert and --tls-key in unequal numbers: usage error, exit 2")
    func unpaired() throws {
        let files = try TLSTests.Files()
        let run = try runTool(["serve", "--port", "0", "--tls-cert", files.serverCertificate, "--tls-key", files.serverKey,
                               "--tls-cert", files.selfSignedCertificate])
        #expect(run.status == 2, "\(run.transcript)")
        #expect(run.stderrLines.first?.contains("--tls-key") == true, "\(run.transcript)")
    }
}
