// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketTLS

/// The seeds of `tls-server` and `tls-client`, in ``TLSTarget``'s input format. The handshakes in
/// them (a ClientHello, a server's first flight) are made when the seeds are written, by real
/// sessions over the fuzz PKI.
enum TLSSeeds {
    /// With `trust`, the split seed gets 0x8000 and the trust byte follows it.
    static func raw(_ control: UInt8, split: UInt16 = 0x0500, trust: UInt8? = nil, _ bytes: [UInt8]) -> [UInt8] {
        header(control, split: split, trust: trust) + bytes
    }

    static func header(_ control: UInt8, split: UInt16, trust: UInt8?) -> [UInt8] {
        let split = trust == nil ? split : split | 0x8000
        return [control, UInt8(split >> 8), UInt8(split & 0xFF)] + (trust.map { [$0] } ?? [])
    }

    /// A man-in-the-middle script: message lengths in units of 64 bytes, flags, operations.
    static func script(_ control: UInt8 = 0x02, split: UInt16 = 0x0500, trust: UInt8? = nil, peer: UInt8 = 4, own: UInt8 = 4,
                       flags: UInt8 = 0, operations: [(kind: UInt8, offset: UInt16, value: UInt8)] = []) -> [UInt8] {
        var bytes = header(control | 0x02, split: split, trust: trust) + [peer, own, flags]
        for operation in operations {
            bytes += [operation.kind, UInt8(operation.offset >> 8), UInt8(operation.offset & 0xFF), operation.value]
        }
        return bytes
    }

    static func text(_ string: String) -> [UInt8] { Array(string.utf8) }

    /// A client's first flight (its ClientHello), TLS 1.3 or at most 1.2.
    static func clientHello(tls12: Bool) -> [UInt8] {
        var client = TLSFuzzContexts.peer(ofServer: true, withCertificate: false, tls12: tls12).makeClientLayerOrDie()
        return take(&client)
    }

    /// A server's first flight, answering a ClientHello of another client (so its keys are wrong
    /// for the session under test; in TLS 1.2 its certificate is still in the clear).
    static func serverFlight(tls12: Bool) -> [UInt8] {
        var client = TLSFuzzContexts.peer(ofServer: true, withCertificate: false, tls12: false).makeClientLayerOrDie()
        var server = TLSFuzzContexts.peer(ofServer: false, withCertificate: false, tls12: tls12).makeServerLayerOrDie()
        let hello = take(&client)
        hello.withUnsafeBytes { server.receive($0) }
        return take(&server)
    }

    static func take(_ session: inout TLSSession) -> [UInt8] {
        var bytes: [UInt8] = []
        session.withPendingOutput { chunk in
            bytes = Array(chunk)
            return chunk.count
        }
        return bytes
    }

    static let commonRaw: [(String, [UInt8])] = [
        ("plain-http-get", raw(0x00, text("GET /chat HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n\r\n"))),
        ("https-proxy-connect", raw(0x00, text("CONNECT localhost:443 HTTP/1.1\r\n\r\n"))),
        ("http-response", raw(0x04, text("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))),
        ("record-length-too-long", raw(0x00, [0x16, 0x03, 0x01, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 64))),
        ("alert-handshake-failure", raw(0x00, [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28])),
        ("sslv2-client-hello", raw(0x00, [0x80, 0x2E, 0x01, 0x03, 0x01, 0x00, 0x15, 0x00, 0x00, 0x00, 0x10]
            + [UInt8](repeating: 0x07, count: 21) + [UInt8](repeating: 0x11, count: 16))),
        ("empty-records", raw(0x00, [0x16, 0x03, 0x01, 0x00, 0x00, 0x16, 0x03, 0x01, 0x00, 0x00, 0x17, 0x03, 0x03, 0x00, 0x00])),
        ("garbage", raw(0x00, (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) })),
        ("end-of-stream-at-once", raw(0x04, [])),
        ("early-bytes-and-finish-then-garbage", raw(0x18, [0x17, 0x03, 0x03, 0x00, 0x10] + [UInt8](repeating: 1, count: 16))),
    ]

    static let commonScripts: [(String, [UInt8])] = [
        ("mitm-clean", script()),
        ("mitm-clean-both-close", script(flags: 0x03)),
        ("mitm-clean-tls12", script(flags: 0x04)),
        ("mitm-clean-bytewise", script(split: 0x0000, peer: 1, own: 1, flags: 0x01)),
        ("mitm-clean-end-of-stream", script(0x04)),
        ("mitm-clean-small-reads", script(0x20, split: 0x0307)),
        ("mitm-clean-tight-limits", script(0x01, peer: 255, own: 255)),
        ("mitm-clean-variant", script(0x80, flags: 0x01)),
        ("mitm-clean-early-bytes-and-finish", script(0x18)),
        ("mitm-large-messages", script(peer: 255, own: 255, flags: 0x03)),
        ("mitm-flip-first-byte", script(operations: [(0, 0, 0xFF)])),
        ("mitm-flip-record-length", script(operations: [(0, 4, 0x40)])),
        ("mitm-flip-in-handshake", script(operations: [(0, 100, 0x01)])),
        ("mitm-flip-in-application-data", script(peer: 64, operations: [(0, 3_000, 0x80)])),
        ("mitm-flip-tls12-certificate", script(flags: 0x04, operations: [(0, 700, 0x01)])),
        ("mitm-insert-record-header", script(operations: [(1, 0, 5)])),
        ("mitm-delete-in-handshake", script(operations: [(2, 200, 10)])),
        ("mitm-truncate-in-handshake", script(operations: [(3, 300, 0)])),
        ("mitm-truncate-after-handshake", script(peer: 64, operations: [(3, 2_500, 0)])),
        ("mitm-trust-accept", script(trust: 0x00, flags: 0x01)),
        ("mitm-trust-override", script(trust: 0x01)),
        ("mitm-trust-reject", script(trust: 0x02)),
        ("mitm-trust-reject-failures-tls12", script(trust: 0x03, flags: 0x04)),
        ("mitm-trust-variant", script(0x80, trust: 0x01, flags: 0x03)),
        ("mitm-trust-flip-in-handshake", script(trust: 0x01, operations: [(0, 100, 0x01)])),
        ("mitm-trust-flip-tls12-certificate", script(trust: 0x01, flags: 0x04, operations: [(0, 700, 0x01)])),
        ("mitm-resumed", script(flags: 0x08)),
        ("mitm-resumed-both-close", script(peer: 4, own: 4, flags: 0x0B)),
        ("mitm-resumed-tls12", script(flags: 0x0C)),
        ("mitm-other-name", script(flags: 0x10)),
        ("mitm-resumed-other-name", script(flags: 0x18)),
        ("mitm-resumed-flip-in-handshake", script(flags: 0x08, operations: [(0, 100, 0x01)])),
        ("mitm-resumed-truncate-in-handshake", script(flags: 0x08, operations: [(3, 150, 0)])),
        ("mitm-other-name-flip-certificate", script(flags: 0x10, operations: [(0, 700, 0x01)])),
    ]

    static var server: [(String, [UInt8])] {
        let hello13 = clientHello(tls12: false), hello12 = clientHello(tls12: true)
        return [
            ("clienthello-tls13", raw(0x00, hello13)),
            ("clienthello-tls12", raw(0x00, hello12)),
            ("clienthello-tls13-bytewise", raw(0x00, split: 0x0000, hello13)),
            ("clienthello-tls13-mutual", raw(0x80, split: 0x0311, hello13)),
            ("clienthello-tls13-then-end-of-stream", raw(0x04, hello13)),
            ("clienthello-tls13-half", raw(0x04, Array(hello13.prefix(hello13.count / 2)))),
            ("clienthello-tls13-output-held", raw(0x40, hello13 + hello13)),
            ("clienthello-tls13-tight", raw(0x01, hello13 + [UInt8](repeating: 0x16, count: 3_000))),
            ("clienthello-twice", raw(0x00, hello12 + hello13)),
            ("clienthello-tls13-trust", raw(0x00, trust: 0x02, hello13)),
            ("mitm-trust-no-client-certificate", script(trust: 0x06)),
        ] + commonRaw + commonScripts
    }

    static var client: [(String, [UInt8])] {
        let flight13 = serverFlight(tls12: false), flight12 = serverFlight(tls12: true)
        return [
            ("server-flight-tls13", raw(0x00, flight13)),
            ("server-flight-tls12", raw(0x00, flight12)),
            ("server-flight-tls12-pinned", raw(0x80, flight12)),
            ("server-flight-tls12-bytewise", raw(0x00, split: 0x0000, flight12)),
            ("server-flight-tls13-tight", raw(0x01, flight13)),
            ("server-flight-tls12-half-then-end", raw(0x04, Array(flight12.prefix(flight12.count / 2)))),
            // The flight's certificate is from the fuzz CA of the process that wrote the seeds, not
            // the running one's: an unknown issuer, which the evaluator overrides or not.
            ("server-flight-tls12-trust-accept", raw(0x00, trust: 0x00, flight12)),
            ("server-flight-tls12-trust-override", raw(0x00, trust: 0x01, flight12)),
            ("server-flight-tls12-trust-reject", raw(0x00, trust: 0x02, flight12)),
            ("server-flight-tls12-trust-override-pinned", raw(0x80, trust: 0x01, flight12)),
            ("server-flight-tls13-trust-override", raw(0x00, trust: 0x01, flight13)),
        ] + commonRaw + commonScripts
    }
}

extension TLSContext {
    func makeClientLayerOrDie() -> TLSSession {
        do throws(WebSocketError) { return try makeClientSession(serverName: "localhost") } catch { fatalError("\(error)") }
    }

    func makeServerLayerOrDie() -> TLSSession {
        do throws(WebSocketError) { return try makeServerSession() } catch { fatalError("\(error)") }
    }
}
