// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
import WebSocketCore
import WebSocketTransport
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// An evaluator that answers with `decide` and records what it was asked.
final class RecordingEvaluator: Sendable {
    private let asked = Locked<[TLSPeerTrust]>([])
    let evaluator: TLSTrustEvaluator

    init(_ decide: @escaping @Sendable (TLSPeerTrust) -> TLSTrustDecision) {
        let asked = self.asked
        evaluator = TLSTrustEvaluator { trust in
            asked.withLock { $0.append(trust) }
            return decide(trust)
        }
    }

    var evaluations: [TLSPeerTrust] { asked.withLock { $0 } }
}

/// `TLSConfiguration.trustEvaluator` on a client: what it is given, and what each decision does,
/// with the pins after it.
@Suite struct TrustEvaluatorTests {
    let pki = TestPKI.shared

    /// A client trusting the test CA with `evaluator`, against a server presenting `identity`
    /// (with `chain`, when given), at most `version`.
    func handshake(_ evaluator: TLSTrustEvaluator?, presenting identity: TestIdentity? = nil, chain: PEMSource? = nil,
                   serverName: String = "localhost", pins: [String] = [], version: TLSVersion? = nil,
                   split: Split = .whole) throws -> SessionPair {
        let identity = identity ?? pki.server
        var client = Configurations.client()
        client.trustEvaluator = evaluator
        client.pinnedPublicKeys = pins
        client.maximumVersion = version
        let server = TLSConfiguration.server(certificateChain: chain ?? identity.certificate, privateKey: identity.key)
        var pair = try SessionPair(client: client, server: server, serverName: serverName, split: split)
        pair.run()
        return pair
    }

    /// Accepts a leaf whose SHA-256 fingerprint is `fingerprint`, overriding a failed verification.
    static func fingerprintEvaluator(_ fingerprint: [UInt8]) -> RecordingEvaluator {
        RecordingEvaluator { trust in
            guard let leaf = trust.certificateChain.first, TestPKI.sha256(leaf) == fingerprint else {
                return .reject(reason: "unknown fingerprint")
            }
            return .acceptOverridingFailure(reason: "the development server's certificate")
        }
    }

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func aFingerprintCallbackAcceptsItsSelfSignedCertificateOnly(version: TLSVersion) throws {
        let recorder = Self.fingerprintEvaluator(pki.selfSigned.fingerprint)
        let known = try handshake(recorder.evaluator, presenting: pki.selfSigned, version: version)
        #expect(known.client.status == .established)
        #expect(known.server.status == .established)
        #expect(known.client.negotiatedVersion == version)
        // The override is on record, with the failure it overrode.
        #expect(known.client.trustOverride?.failure.kind == .unknownIssuer)
        #expect(known.client.trustOverride?.reason == "the development server's certificate")
        #expect(known.client.peerCertificateSubject == "CN=localhost")

        let other = try handshake(recorder.evaluator, presenting: pki.otherSelfSigned, version: version)
        #expect(other.client.tlsError?.kind == .invalidCertificate)
        #expect(other.client.tlsError?.reason.hasPrefix("rejected by the trust evaluator: unknown fingerprint") == true)
        // The default failure is kept in the reason, and its alert goes to the server.
        #expect(other.client.tlsError?.reason.contains("self-signed") == true)
        #expect(other.server.tlsError?.kind == .handshakeFailed)
        #expect(other.server.status != .established)
        #expect(recorder.evaluations.count == 2)
    }

    @Test func pinnedCertificatesAcceptTheirsAndRejectEveryOtherLeaf() throws {
        let evaluator = try TLSTrustEvaluator.pinnedCertificates(sha256: [pki.otherSelfSigned.fingerprint, pki.selfSigned.fingerprint])
        let known = try handshake(evaluator, presenting: pki.selfSigned)
        #expect(known.client.status == .established)
        #expect(known.client.trustOverride?.reason == "the leaf certificate's SHA-256 fingerprint \(pki.selfSigned.fingerprintHex) is pinned")
        // Any name: the certificate itself is what is trusted.
        #expect(try handshake(evaluator, presenting: pki.selfSigned, serverName: "example.com").client.status == .established)
        // A certificate the CA issued is not pinned: rejected although the verification passes it.
        let verified = try handshake(evaluator)
        #expect(verified.client.tlsError == TLSError(.invalidCertificate, reason: "rejected by the trust evaluator: the leaf "
                                                        + "certificate's SHA-256 fingerprint \(pki.server.fingerprintHex) is not one "
                                                        + "of the 2 pinned"))
        #expect(verified.server.tlsError?.reason.contains("bad certificate") == true)
    }

    @Test(arguments: [Split.whole, .bytewise])
    func aRejectionOfAChainTheDefaultAcceptsReachesTheCaller(split: Split) throws {
        let recorder = RecordingEvaluator { _ in .reject(reason: "not on the allow list") }
        let pair = try handshake(recorder.evaluator, split: split)
        let expected = TLSError(.invalidCertificate, reason: "rejected by the trust evaluator: not on the allow list")
        #expect(pair.client.status == .failed(.tls(expected)))
        #expect(WebSocketError.tls(expected).description.contains("not on the allow list"))
        // OpenSSL's alert for a rejected certificate.
        #expect(pair.server.tlsError?.kind == .handshakeFailed)
        #expect(pair.server.tlsError?.reason.contains("bad certificate") == true)
        #expect(recorder.evaluations.map(\.defaultVerdict) == [.passed])
    }

    @Test func theEvaluatorIsGivenTheChainAsSentTheNameAndAPassedVerdict() throws {
        let recorder = RecordingEvaluator { _ in .accept }
        let pair = try handshake(recorder.evaluator, presenting: pki.viaIntermediate, chain: .bytes(pki.intermediateChainPEM))
        #expect(pair.client.status == .established)
        #expect(pair.client.trustOverride == nil)
        #expect(recorder.evaluations == [TLSPeerTrust(certificateChain: [pki.viaIntermediate.certificateDER, pki.intermediate.certificateDER],
                                                      serverName: "localhost", defaultVerdict: .passed)])
    }

    @Test func theEvaluatorIsAskedOnceWhateverTheSplit() throws {
        for split in Split.all {
            let recorder = RecordingEvaluator { _ in .accept }
            #expect(try handshake(recorder.evaluator, split: split).client.status == .established)
            #expect(recorder.evaluations.count == 1, "\(split)")
        }
    }

    /// The default verdict's failure, as the evaluator sees it, for a server presenting `identity`.
    func defaultVerdict(presenting identity: TestIdentity, serverName: String = "localhost") throws -> TLSVerificationVerdict? {
        let recorder = RecordingEvaluator { _ in .accept }
        let pair = try handshake(recorder.evaluator, presenting: identity, serverName: serverName)
        // `.accept` keeps the failure: the session fails as it does without an evaluator.
        let without = try handshake(nil, presenting: identity, serverName: serverName)
        #expect(pair.client.tlsError != nil)
        #expect(pair.client.tlsError == without.client.tlsError)
        #expect(recorder.evaluations.count == 1)
        #expect(recorder.evaluations.first?.serverName == serverName)
        return recorder.evaluations.first?.defaultVerdict
    }

    @Test func theDefaultVerdictsReasonIsTheSessionsOwn() throws {
        #expect(try defaultVerdict(presenting: pki.expired) == .failed(TLSError(.expired, reason: "certificate has expired")))
        #expect(try defaultVerdict(presenting: pki.notYetValid) == .failed(TLSError(.notYetValid, reason: "certificate is not yet valid")))
        #expect(try defaultVerdict(presenting: pki.fromOtherCA)
                    == .failed(TLSError(.unknownIssuer, reason: "unable to get local issuer certificate")))
        #expect(try defaultVerdict(presenting: pki.selfSigned)
                    == .failed(TLSError(.unknownIssuer, reason: "self-signed certificate")))
        #expect(try defaultVerdict(presenting: pki.server, serverName: "example.com")
                    == .failed(TLSError(.nameMismatch(expected: "example.com"), reason: "hostname mismatch")))
        #expect(try defaultVerdict(presenting: pki.server, serverName: "127.0.0.2")
                    == .failed(TLSError(.nameMismatch(expected: "127.0.0.2"), reason: "IP address mismatch")))
    }

    @Test func anOverrideOfAnExpiredCertificateIsRecorded() throws {
        let recorder = RecordingEvaluator { _ in .acceptOverridingFailure(reason: "the clock of the lab is wrong") }
        let pair = try handshake(recorder.evaluator, presenting: pki.expired)
        #expect(pair.client.status == .established)
        #expect(pair.client.trustOverride == TLSTrustOverride(failure: TLSError(.expired, reason: "certificate has expired"),
                                                              reason: "the clock of the lab is wrong"))
        // Over a chain that passed, nothing was overridden.
        let passed = try handshake(recorder.evaluator)
        #expect(passed.client.status == .established)
        #expect(passed.client.trustOverride == nil)
    }

    @Test func pinsAreCheckedAfterTheEvaluatorAccepts() throws {
        let accepting = RecordingEvaluator { _ in .accept }
        let mismatch = try handshake(accepting.evaluator, pins: [pki.otherCA.pin])
        #expect(mismatch.client.tlsError?.kind == .pinMismatch)
        #expect(accepting.evaluations.count == 1)
        #expect(try handshake(accepting.evaluator, pins: [pki.ca.pin]).client.status == .established)
        // A rejection stands even when the pins match.
        let rejecting = RecordingEvaluator { _ in .reject(reason: "no") }
        #expect(try handshake(rejecting.evaluator, pins: [pki.server.pin]).client.tlsError?.kind == .invalidCertificate)
    }

    @Test func afterAnOverrideOnlyTheLeafsKeyCountsForThePins() throws {
        let overriding = Self.fingerprintEvaluator(pki.selfSigned.fingerprint)
        let pinned = try handshake(overriding.evaluator, presenting: pki.selfSigned, pins: [pki.selfSigned.pin])
        #expect(pinned.client.status == .established)
        #expect(pinned.client.trustOverride != nil)
        let otherPin = try handshake(overriding.evaluator, presenting: pki.selfSigned, pins: [pki.server.pin])
        #expect(otherPin.client.tlsError?.kind == .pinMismatch)
        #expect(otherPin.client.trustOverride == nil)

        // A leaf of an untrusted CA, sent with a copy of that CA, whose key is pinned: the chain did
        // not verify, so the CA's certificate proves nothing, and only the leaf counts.
        let anything = RecordingEvaluator { _ in .acceptOverridingFailure(reason: "anything") }
        let chain = PEMSource.bytes(pki.fromOtherCA.certificatePEM + pki.otherCA.certificatePEM)
        let sentCA = try handshake(anything.evaluator, presenting: pki.fromOtherCA, chain: chain, pins: [pki.otherCA.pin])
        #expect(sentCA.client.tlsError?.kind == .pinMismatch)
        #expect(sentCA.client.tlsError?.reason.contains("only the leaf's key counts") == true)
        #expect(anything.evaluations.first?.certificateChain == [pki.fromOtherCA.certificateDER, pki.otherCA.certificateDER])
    }

    @Test func configurationsWithAnEvaluatorCompareByItsIdentity() {
        let decide: @Sendable (TLSPeerTrust) -> TLSTrustDecision = { _ in .accept }
        let evaluator = TLSTrustEvaluator(decide)
        var first = TLSConfiguration.client()
        first.trustEvaluator = evaluator
        let copy = first
        #expect(first == copy)
        #expect(Set([first, copy]).count == 1)
        var second = TLSConfiguration.client()
        second.trustEvaluator = TLSTrustEvaluator(decide)
        #expect(first != second)
        #expect(first != TLSConfiguration.client())
    }
}

/// The evaluator on a server, deciding on client certificates.
@Suite struct ClientCertificateEvaluatorTests {
    let pki = TestPKI.shared

    func handshake(_ evaluator: TLSTrustEvaluator, policy: ClientCertificatePolicy, presenting identity: TestIdentity?,
                   version: TLSVersion) throws -> SessionPair {
        try SessionPair.mutual(policy: policy, presenting: identity, clientMaximum: version, evaluator: evaluator)
    }

    static let required = ClientCertificatePolicy.required(trustRoots: .only([TestPKI.shared.ca.certificate]))

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func theServersEvaluatorSeesTheClientsChainWithoutAName(version: TLSVersion) throws {
        let recorder = RecordingEvaluator { _ in .accept }
        let pair = try handshake(recorder.evaluator, policy: Self.required, presenting: pki.client, version: version)
        #expect(pair.server.status == .established)
        #expect(pair.server.peerCertificateSubject == "CN=test-client")
        // The client's OpenSSL completes the chain it sends from its own trust store: the CA comes
        // with the leaf.
        #expect(recorder.evaluations == [TLSPeerTrust(certificateChain: [pki.client.certificateDER, pki.ca.certificateDER],
                                                      serverName: nil, defaultVerdict: .passed)])
    }

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func theServersRejectionReachesItsCallerAndTheClientIsRefused(version: TLSVersion) throws {
        let recorder = RecordingEvaluator { trust in
            trust.certificateChain.first == TestPKI.shared.client.certificateDER ? .reject(reason: "alice is suspended") : .accept
        }
        let pair = try handshake(recorder.evaluator, policy: Self.required, presenting: pki.client, version: version)
        #expect(pair.server.tlsError == TLSError(.invalidCertificate, reason: "rejected by the trust evaluator: alice is suspended"))
        #expect(pair.client.tlsError?.kind == .handshakeFailed)
        #expect(pair.client.tlsError?.reason.contains("refused our certificate") == true)
    }

    @Test func theServerMayOverrideForAClientOfAnotherCA() throws {
        let recorder = RecordingEvaluator { trust in
            trust.certificateChain.first == TestPKI.shared.clientFromOtherCA.certificateDER
                ? .acceptOverridingFailure(reason: "a partner's client") : .accept
        }
        let pair = try handshake(recorder.evaluator, policy: Self.required, presenting: pki.clientFromOtherCA, version: .v1_3)
        #expect(pair.server.status == .established)
        #expect(pair.client.status == .established)
        #expect(pair.server.trustOverride?.failure.kind == .unknownIssuer)
        #expect(pair.server.peerCertificateSubject == "CN=intruder")
    }

    @Test func aClientWithoutACertificateIsNotEvaluated() throws {
        let recorder = RecordingEvaluator { _ in .reject(reason: "never asked") }
        let optional = ClientCertificatePolicy.optional(trustRoots: .only([pki.ca.certificate]))
        let pair = try handshake(recorder.evaluator, policy: optional, presenting: nil, version: .v1_3)
        #expect(pair.server.status == .established)
        #expect(recorder.evaluations.isEmpty)
        let required = try handshake(recorder.evaluator, policy: Self.required, presenting: nil, version: .v1_3)
        #expect(required.server.tlsError?.kind == .peerCertificateRequired)
    }
}
#endif
