// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if !canImport(COpenSSL)
import WebSocketTransport
/// Where OpenSSL is missing, no ``TLSContext`` can be created, so no session exists: this engine
/// only lets ``TLSSession`` compile, and reports the one thing it could.
final class SessionEngine: Sendable {
    private init() {}

    var status: TransportLayerStatus {
        .failed(.tls(TLSError(.unavailable, reason: "WebSocketTLS was built without OpenSSL")))
    }

    func receive(_ bytes: UnsafeRawBufferPointer) {}
    func receiveEOF() {}
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int { 0 }
    func send(_ bytes: UnsafeRawBufferPointer) {}
    func finishSending() {}
    var pendingOutputCount: Int { 0 }
    func withPendingOutput(_ write: (UnsafeRawBufferPointer) -> Int) {}
    var negotiatedApplicationProtocol: String? { nil }
    var negotiatedVersion: TLSVersion? { nil }
    var peerCertificateSubject: String? { nil }
    var acceptedTrustOverride: TLSTrustOverride? { nil }
    var requestedServerName: String? { nil }
    var isResumed: Bool { false }
    var bufferedCiphertextCount: Int { 0 }
    var bufferedPlaintextCount: Int { 0 }
}

/// Digests need OpenSSL: without it there is no session to evaluate a certificate for, and an
/// evaluator called by hand rejects (``TLSTrustEvaluator/pinnedCertificates(sha256:)``).
enum CertificateDigest {
    static func sha256(_ bytes: [UInt8]) -> [UInt8]? { nil }
}
#endif

#if !canImport(COpenSSL)
/// Without OpenSSL no session is ever stored.
final class CachedSession: Sendable {
    var isSingleUse: Bool { true }
}
#endif
