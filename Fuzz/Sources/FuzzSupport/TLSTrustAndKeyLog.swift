// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketTLS

/// The trust evaluator and the key logs of the TLS targets, and their invariants.
///
/// The contexts are made at start-up (TLSFuzzContexts), so their evaluator and key log sinks are
/// closures over this one recorder, which each session under test resets with the input's decision.
/// `@unchecked Sendable`: libFuzzer runs one input at a time, on one thread (`-jobs` runs processes).
final class TLSFuzzRecorder: @unchecked Sendable {
    static let shared = TLSFuzzRecorder()

    /// The input's trust byte: bits 0-1 the decision (``decide(_:)``).
    private(set) var decision: UInt8 = 0
    /// What the evaluator of the session under test was asked, in order.
    private(set) var evaluations: [TLSPeerTrust] = []
    /// The key log lines of the session under test, and of its peer (man-in-the-middle mode).
    private(set) var underTestLines: [String] = []
    private(set) var peerLines: [String] = []

    static let overrideReason = "fuzz override"
    static let rejectionReason = "fuzz rejection"

    func reset(decision: UInt8) {
        self.decision = decision
        evaluations = []
        underTestLines = []
        peerLines = []
    }

    /// 0 accept, 1 override, 2 reject, 3 reject a failed chain and accept a passed one.
    func decide(_ trust: TLSPeerTrust) -> TLSTrustDecision {
        evaluations.append(trust)
        switch (decision & 0x03, trust.defaultVerdict) {
        case (0, _), (3, .passed): return .accept
        case (1, _): return .acceptOverridingFailure(reason: Self.overrideReason)
        default: return .reject(reason: Self.rejectionReason)
        }
    }

    /// Whether the decision refuses a chain with this verdict.
    func rejects(_ verdict: TLSVerificationVerdict) -> Bool {
        switch (decision & 0x03, verdict) {
        case (2, _), (3, .failed): return true
        default: return false
        }
    }

    var evaluator: TLSTrustEvaluator {
        TLSTrustEvaluator { trust in TLSFuzzRecorder.shared.decide(trust) }
    }

    var underTestKeyLog: TLSKeyLog {
        TLSKeyLog { line in TLSFuzzRecorder.shared.underTestLines.append(line) }
    }

    var peerKeyLog: TLSKeyLog {
        TLSKeyLog { line in TLSFuzzRecorder.shared.peerLines.append(line) }
    }
}

/// The invariants of a session under test with an evaluator and a key log (the trust byte), checked
/// by ``TLSObserved`` after every call:
///
/// - The evaluator is asked at most once, with a chain of DER certificates (each a SEQUENCE), the
///   name `localhost` (client) or none (server), and a default verdict that is a certificate failure
///   or a pass.
/// - What it decided is what happened: a rejection fails the session at once with
///   `.invalidCertificate` and the rejection's reason; `.accept` of a failed chain fails it with
///   exactly the default failure; an override of a failed chain is on record once established (with
///   the CA's key pinned, it never completes, and fails with `.pinMismatch` unless its leaf is the
///   CA's certificate: after an override only the leaf counts); a
///   session past its handshake was never refused and, as a client, was asked once.
/// - Every key log line is `LABEL <64 hex digits> <hex of a 32- or 48-byte secret>`, with a known
///   label, each label at most once, all lines with one client random.
struct TLSTrustExpectations {
    let isServer: Bool
    let hasPins: Bool

    static let certificateFailureKinds: [TLSError.Kind] = [.unknownIssuer, .expired, .notYetValid, .invalidCertificate]

    static let labels: Set<Substring> = [
        "CLIENT_RANDOM", "CLIENT_EARLY_TRAFFIC_SECRET", "CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SERVER_HANDSHAKE_TRAFFIC_SECRET",
        "CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0", "EARLY_EXPORTER_SECRET", "EXPORTER_SECRET",
    ]

    func check(_ session: TLSSession, who: String) {
        let recorder = TLSFuzzRecorder.shared
        checkKeyLog(recorder.underTestLines, who: who)
        let evaluations = recorder.evaluations
        if evaluations.count > 1 { fuzzFailure("\(who): the trust evaluator was asked \(evaluations.count) times") }
        let status = session.status
        let pastHandshake: Bool
        switch status {
        case .established, .ended: pastHandshake = true
        case .establishing, .failed: pastHandshake = false
        }
        guard let trust = evaluations.first else {
            if pastHandshake, !isServer { fuzzFailure("\(who): established without asking its trust evaluator") }
            return
        }
        checkAsked(trust, who: who)
        let failure: TLSError? = if case .failed(let error) = trust.defaultVerdict { error } else { nil }
        if recorder.rejects(trust.defaultVerdict) {
            guard case .failed(.tls(let error)) = status, error.kind == .invalidCertificate,
                  error.reason.hasPrefix("rejected by the trust evaluator: \(TLSFuzzRecorder.rejectionReason)")
            else { fuzzFailure("\(who): the trust evaluator rejected the chain, and the session is \(status)") }
            return
        }
        if case .failed(.tls(let error)) = status, error.reason.hasPrefix("rejected by the trust evaluator") {
            fuzzFailure("\(who): \(error) although the trust evaluator did not reject")
        }
        guard let failure else {
            if pastHandshake, session.trustOverride != nil { fuzzFailure("\(who): an override of a chain that passed") }
            return
        }
        switch recorder.decision & 0x03 {
        case 0:
            // `.accept` never widens trust: the failure stands, as without an evaluator.
            if status != .failed(.tls(failure)) { fuzzFailure("\(who): accepted a chain that failed (\(failure)): \(status)") }
        default:
            if hasPins {
                // The pin is the CA's key, and after an override only the leaf's counts: a mismatch,
                // unless the leaf is the CA's own certificate (a peer's chain cut short), whose key
                // never signs a handshake.
                if pastHandshake { fuzzFailure("\(who): established after an override with the CA pinned") }
                let pinMismatch = if case .failed(.tls(let error)) = status { error.kind == .pinMismatch } else { false }
                if !pinMismatch, trust.certificateChain.first != TLSFuzzPKI.shared.caCertificateDER {
                    fuzzFailure("\(who): an override with the CA pinned: \(status)")
                }
            } else if pastHandshake,
                      session.trustOverride != TLSTrustOverride(failure: failure, reason: TLSFuzzRecorder.overrideReason) {
                fuzzFailure("\(who): the override of \(failure) is not on record: \(String(describing: session.trustOverride))")
            }
        }
    }

    private func checkAsked(_ trust: TLSPeerTrust, who: String) {
        if trust.certificateChain.isEmpty { fuzzFailure("\(who): the trust evaluator was given no certificate") }
        if let bad = trust.certificateChain.first(where: { $0.count < 2 || $0[0] != 0x30 }) {
            fuzzFailure("\(who): the trust evaluator was given \(bad.count) bytes that are not a DER certificate")
        }
        if trust.serverName != (isServer ? nil : "localhost") {
            fuzzFailure("\(who): the trust evaluator was given the name \(String(describing: trust.serverName))")
        }
        if case .failed(let error) = trust.defaultVerdict {
            // A client also sees name mismatches; nothing else is a verdict on a chain.
            let isChainVerdict = Self.certificateFailureKinds.contains(error.kind)
                || (!isServer && error.kind == .nameMismatch(expected: "localhost"))
            if !isChainVerdict { fuzzFailure("\(who): a default verdict of \(error)") }
        }
    }

    func checkKeyLog(_ lines: [String], who: String) {
        var random: Substring? = nil
        var seen: Set<Substring> = []
        for line in lines {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 3, Self.labels.contains(fields[0]), Self.isHex(fields[1]), fields[1].utf8.count == 64,
                  Self.isHex(fields[2]), [64, 96].contains(fields[2].utf8.count)
            else { fuzzFailure("\(who): a key log line that is not NSS's format: \(String(reflecting: line))") }
            if let random, random != fields[1] { fuzzFailure("\(who): key log lines with two client randoms") }
            random = fields[1]
            if !seen.insert(fields[0]).inserted { fuzzFailure("\(who): \(fields[0]) logged twice") }
        }
    }

    private static func isHex(_ text: Substring) -> Bool {
        text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0) }
    }
}
