// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketTLS

/// A TLS session driven by a TLS target, with the invariants checked after every call:
///
/// - **Status only moves forward**: establishing, established, ended, failed; an ended session's
///   `clean` and a failed session's error never change.
/// - **Memory**: the undecrypted input within the ciphertext limit, the bytes sent before the
///   handshake within theirs, the output within `maxPendingOutput` plus what one call may add.
/// - **Reads**: `read(into:)` returns 0...buffer.count, and nothing before the handshake completed or
///   after a failure; a failed session holds no input.
/// - **Errors**: never `.configuration` or `.unavailable` from peer bytes; a name or pin error only
///   on a client, a missing certificate only on a server; a pin error only when pins are set.
/// - **Trust and key log** (with the trust byte): ``TLSTrustExpectations``.
/// - **Output**: everything written re-parses as TLS records (content types 20-23, version 3.0-3.3
///   except in alerts, at most 2^14 + 2048 bytes each), and ends on a record boundary whenever it is
///   all taken.
struct TLSObserved {
    var session: TLSSession
    let who: String
    let isServer: Bool
    let hasPins: Bool
    let limits: TLSLimits
    let readSize: Int
    /// With an evaluator and a key log (the trust byte), their invariants.
    let trust: TLSTrustExpectations?
    /// The plaintext read, in order.
    private(set) var read: [UInt8] = []
    private(set) var last: TransportLayerStatus
    private var records = TLSRecordChecker()
    private var buffer: [UInt8]

    /// What one call may add to the output beyond `maxPendingOutput`: a handshake flight, or a
    /// harness message (at most 16 KiB) encrypted.
    static let outputSlack = 64 << 10

    init(_ session: TLSSession, who: String, isServer: Bool, hasPins: Bool, limits: TLSLimits, readSize: Int,
         trust: TLSTrustExpectations? = nil) {
        self.session = session
        self.who = who
        self.isServer = isServer
        self.hasPins = hasPins
        self.limits = limits
        self.readSize = readSize
        self.trust = trust
        last = session.status
        buffer = [UInt8](repeating: 0, count: readSize)
        check("creation")
    }

    var status: TransportLayerStatus { session.status }

    mutating func receive(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { session.receive($0) }
        check("receive of \(bytes.count) bytes")
        readAll()
    }

    mutating func receiveEOF() {
        session.receiveEOF()
        check("receiveEOF")
        readAll()
    }

    mutating func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { session.send($0) }
        check("send of \(bytes.count) bytes")
    }

    mutating func finishSending() {
        session.finishSending()
        check("finishSending")
    }

    /// Takes all the output (checking that it is TLS records).
    mutating func takeOutput() -> [UInt8] {
        var output: [UInt8] = []
        session.withPendingOutput { bytes in
            output = Array(bytes)
            return bytes.count
        }
        if session.pendingOutputCount != 0 { fuzzFailure("\(who): \(session.pendingOutputCount) bytes left after a full write") }
        if let problem = records.feed(output) { fuzzFailure("\(who) wrote something that is not TLS: \(problem)") }
        if !records.atBoundary { fuzzFailure("\(who): its output ends inside a record") }
        check("withPendingOutput")
        return output
    }

    mutating func readAll() {
        while true {
            let before = session.status
            let count = buffer.withUnsafeMutableBytes { session.read(into: $0) }
            guard count >= 0, count <= readSize else { fuzzFailure("\(who): read(into:) returned \(count) for \(readSize) bytes") }
            if count > 0 {
                switch before {
                case .established, .ended: break
                case .establishing, .failed: fuzzFailure("\(who): read \(count) bytes while \(before)")
                }
                read += buffer[..<count]
            }
            check("read(into:)")
            if count == 0 { return }
        }
    }

    private mutating func check(_ call: String) {
        let now = session.status
        if !Self.isForward(from: last, to: now) { fuzzFailure("\(who): \(call) moved the status from \(last) to \(now)") }
        last = now
        let ciphertextLimit = limits.effectiveMaxBufferedCiphertext
        if session.bufferedCiphertextCount > ciphertextLimit {
            fuzzFailure("\(who): \(session.bufferedCiphertextCount) bytes undecrypted, over \(ciphertextLimit)")
        }
        if session.bufferedPlaintextCount > limits.maxBufferedPlaintext {
            fuzzFailure("\(who): \(session.bufferedPlaintextCount) bytes sent before the handshake, over \(limits.maxBufferedPlaintext)")
        }
        if session.pendingOutputCount > limits.maxPendingOutput + Self.outputSlack {
            fuzzFailure("\(who): \(session.pendingOutputCount) bytes of output, over \(limits.maxPendingOutput) and the slack")
        }
        trust?.check(session, who: who)
        guard case .failed(let error) = now else { return }
        if session.bufferedCiphertextCount != 0 || session.bufferedPlaintextCount != 0 {
            fuzzFailure("\(who): a failed session holds \(session.bufferedCiphertextCount) + \(session.bufferedPlaintextCount) bytes")
        }
        guard case .tls(let tls) = error else { fuzzFailure("\(who): failed with a non-TLS error \(error)") }
        switch tls.kind {
        case .configuration, .unavailable:
            fuzzFailure("\(who): peer bytes caused \(tls)")
        case .nameMismatch where isServer, .pinMismatch where isServer:
            fuzzFailure("\(who): a server reported \(tls)")
        case .pinMismatch where !hasPins:
            fuzzFailure("\(who): a pin mismatch without pins: \(tls)")
        case .peerCertificateRequired where !isServer:
            fuzzFailure("\(who): a client reported \(tls)")
        default:
            break
        }
    }

    static func rank(_ status: TransportLayerStatus) -> Int {
        switch status {
        case .establishing: return 0
        case .established: return 1
        case .ended: return 2
        case .failed: return 3
        }
    }

    static func isForward(from old: TransportLayerStatus, to new: TransportLayerStatus) -> Bool {
        switch (old, new) {
        case (.ended(let a), .ended(let b)): return a == b
        case (.failed(let a), .failed(let b)): return a == b
        case (.failed, _): return false
        default: return rank(new) >= rank(old)
        }
    }
}

/// Reads a stream of TLS records (RFC 8446 §5.1) as it is written, piece by piece.
struct TLSRecordChecker {
    private var header: [UInt8] = []
    private var bodyLeft = 0

    var atBoundary: Bool { header.isEmpty && bodyLeft == 0 }

    /// The first problem in `bytes`, or nil.
    mutating func feed(_ bytes: [UInt8]) -> String? {
        var index = 0
        while index < bytes.count {
            if bodyLeft > 0 {
                let step = min(bodyLeft, bytes.count - index)
                bodyLeft -= step
                index += step
                continue
            }
            header.append(bytes[index])
            index += 1
            guard header.count == 5 else { continue }
            let type = header[0], major = header[1], minor = header[2]
            let length = Int(header[3]) << 8 | Int(header[4])
            header.removeAll(keepingCapacity: true)
            guard (20...23).contains(type) else { return "record type \(type)" }
            // An alert that refuses the peer's version carries the peer's own version number (OpenSSL
            // does so "like ssl3_get_record"), whatever the peer wrote; others are 3.0 (an alert
            // before any version was agreed) to 3.3.
            guard type == 21 || (major == 3 && (0...3).contains(minor)) else { return "record version \(major).\(minor)" }
            guard length <= (1 << 14) + 2048 else { return "record of \(length) bytes" }
            bodyLeft = length
        }
        return nil
    }
}
