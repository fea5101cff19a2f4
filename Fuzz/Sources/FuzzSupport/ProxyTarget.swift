// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketTLS

/// `proxy-response`: a proxy tunnel layer (`HTTPConnectTunnel` or `SOCKS5Tunnel`) fed arbitrary bytes
/// as its proxy's, from the first byte on.
///
/// Input: `control`, two bytes of split point, then the proxy's bytes. Bits of `control`: 0x01 SOCKS5
/// (else HTTP CONNECT); 0x02 credentials (Basic, or RFC 1929); 0x04 tight limits (a 256-byte head, 8
/// header fields); 0x08 end of stream after the bytes; 0x10 bytes sent from above before any input;
/// 0x20 the target an IPv6 address (else a name).
///
/// Invariants: the status only moves forward (establishing, then established and ended, or failed,
/// which never changes); what the layer holds stays within its limits (the head's bytes, the 262 bytes
/// of the largest SOCKS5 reply, the bytes held from above); nothing is read before the tunnel is up or
/// after a failure, and a read never returns more than its buffer; a failure from the proxy's bytes is
/// never one of the local kinds (a bad URL, target, credentials, header, or the send limit); bytes from
/// above reach the output only once the tunnel is up, after the handshake's own messages; once up, what
/// is read is exactly the input after the reply, whose end an independent reading of the input
/// confirms (an HTTP head ending in LF, or a SOCKS5 exchange of the right shape with REP 0); and the
/// input whole, in two pieces and byte by byte (up to 2 KiB) gives the same status, reads and output.
public enum ProxyTarget {
    struct Variant {
        var socks: Bool
        var credentials: Bool
        var tight: Bool
        var endOfStream: Bool
        var early: Bool
        var ipv6: Bool

        var limits: ProxyLimits {
            var limits = ProxyLimits()
            if tight {
                limits.maxResponseHeadBytes = 256
                limits.maxResponseHeaderCount = 8
            }
            return limits
        }

        var host: String { ipv6 ? "2001:db8::1" : "example.com" }
        var credentialValue: ProxyCredentials? { credentials ? ProxyCredentials(user: "user", password: "pass") : nil }

        func makeLayer() -> any TransportLayer {
            do {
                if socks { return try SOCKS5Tunnel(host: host, port: 443, credentials: credentialValue, limits: limits) }
                return try HTTPConnectTunnel(host: host, port: 443, credentials: credentialValue, limits: limits)
            } catch {
                fuzzFailure("cannot make the tunnel: \(error)")
            }
        }
    }

    /// Bytes from above, never part of a handshake message.
    static let early: [UInt8] = Array("\u{1}EARLY-BYTES-FROM-ABOVE".utf8)

    struct Run: Equatable {
        var status: TransportLayerStatus
        var read: [UInt8]
        var output: [UInt8]
    }

    public static func run(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        let control = input.byte()
        let splitSeed = Int(input.uint16())
        let variant = Variant(socks: control & 0x01 != 0, credentials: control & 0x02 != 0, tight: control & 0x04 != 0,
                              endOfStream: control & 0x08 != 0, early: control & 0x10 != 0, ipv6: control & 0x20 != 0)
        let wire = input.rest()

        let whole = feed(variant, wire, pieces: [wire.count])
        let cut = splitSeed % (wire.count + 1)
        let split = feed(variant, wire, pieces: [cut, wire.count - cut])
        guard whole == split else {
            fuzzFailure("split at \(cut) of \(wire.count): \(whole.status) read \(whole.read.count) output \(whole.output.count), "
                        + "split \(split.status) read \(split.read.count) output \(split.output.count)")
        }
        if wire.count <= 2048 {
            let bytewise = feed(variant, wire, pieces: Array(repeating: 1, count: wire.count))
            guard whole == bytewise else { fuzzFailure("bytewise: \(whole.status) against \(bytewise.status)") }
        }
        check(whole, variant: variant, wire: wire)
    }

    static func rank(_ status: TransportLayerStatus) -> Int {
        switch status {
        case .establishing: return 0
        case .established: return 1
        case .ended: return 2
        case .failed: return 3
        }
    }

    static func feed(_ variant: Variant, _ wire: [UInt8], pieces: [Int]) -> Run {
        var layer = variant.makeLayer()
        var read: [UInt8] = []
        var output: [UInt8] = []
        var previous = layer.status
        let limits = variant.limits
        var buffer = [UInt8](repeating: 0, count: 13)

        func afterCall(_ what: String) {
            let status = layer.status
            let forward = rank(status) > rank(previous) || status == previous
            guard forward, !(rank(previous) == 3 && status != previous), !(rank(previous) == 2 && rank(status) == 3) else {
                fuzzFailure("\(what): status went from \(previous) to \(status)")
            }
            previous = status
            // Reads: nothing before the tunnel is up or after a failure; never more than the buffer.
            while true {
                let count = buffer.withUnsafeMutableBytes { layer.read(into: $0) }
                guard count >= 0, count <= buffer.count else { fuzzFailure("read(into:) returned \(count)") }
                guard count > 0 else { break }
                guard rank(layer.status) == 1 || rank(layer.status) == 2 else {
                    fuzzFailure("\(count) bytes read in \(layer.status)")
                }
                read += buffer[..<count]
            }
            // Memory.
            if let http = layer as? HTTPConnectTunnel {
                // The line (at most the head, with the allocator's rounding) and the fields (at most 3 × the
                // head: each byte of invalid UTF-8 stored as U+FFFD).
                guard http.bufferedResponseByteCount <= 4 * limits.maxResponseHeadBytes + 64 else {
                    fuzzFailure("the HTTP tunnel holds \(http.bufferedResponseByteCount) bytes of head")
                }
                guard http.heldSendCount <= limits.maxBufferedSend else { fuzzFailure("held \(http.heldSendCount)") }
            } else if let socks = layer as? SOCKS5Tunnel {
                guard socks.bufferedReplyByteCount <= 262 else { fuzzFailure("the SOCKS5 tunnel holds \(socks.bufferedReplyByteCount)") }
                guard socks.heldSendCount <= limits.maxBufferedSend else { fuzzFailure("held \(socks.heldSendCount)") }
            }
            if case .failed(let error) = layer.status {
                guard case .proxy(let proxyError) = error else { fuzzFailure("a tunnel failed with \(error)") }
                let local: [ProxyError.Code] = [.invalidURL, .invalidTarget, .invalidCredentials, .invalidHeader, .limitExceeded]
                guard !local.contains(proxyError.code) else { fuzzFailure("the proxy's bytes caused \(proxyError)") }
            }
            // Output: take it all, as an adapter would.
            layer.withPendingOutput { bytes in
                output += bytes
                return bytes.count
            }
            let hasEarly = output.count >= early.count && output.suffix(early.count).elementsEqual(early)
            if hasEarly, rank(layer.status) == 0 || rank(layer.status) == 3 {
                fuzzFailure("bytes from above went out in \(layer.status)")
            }
        }

        if variant.early {
            early.withUnsafeBytes { layer.send($0) }
        }
        afterCall("send")
        var start = 0
        for count in pieces {
            wire[start..<(start + count)].withUnsafeBytes { layer.receive($0) }
            start += count
            afterCall("receive")
        }
        if variant.endOfStream {
            layer.receiveEOF()
            afterCall("receiveEOF")
            if rank(layer.status) == 0 { fuzzFailure("still establishing after the end of the stream") }
        }
        return Run(status: layer.status, read: read, output: output)
    }

    /// What the whole run must satisfy, read independently from the input.
    static func check(_ run: Run, variant: Variant, wire: [UInt8]) {
        let up = rank(run.status) == 1 || rank(run.status) == 2
        if variant.early, up {
            guard run.output.suffix(early.count).elementsEqual(early) else { fuzzFailure("the bytes from above were not sent") }
        }
        guard up else {
            guard run.read.isEmpty else { fuzzFailure("read \(run.read.count) bytes without a tunnel") }
            return
        }
        guard wire.count >= run.read.count, wire.suffix(run.read.count).elementsEqual(run.read) else {
            fuzzFailure("what was read is not the end of the input")
        }
        let head = Array(wire[..<(wire.count - run.read.count)])
        if variant.socks {
            checkSOCKS5Exchange(head, credentials: variant.credentials)
        } else {
            guard head.last == 0x0A else { fuzzFailure("the HTTP head does not end in LF") }
            let text = String(decoding: head, as: UTF8.self)
            guard text.contains("HTTP/1.") else { fuzzFailure("established without a status line") }
        }
    }

    /// `VER METHOD [1 STATUS] VER REP RSV ATYP ADDR PORT`, with REP 0 and everything valid.
    static func checkSOCKS5Exchange(_ head: [UInt8], credentials: Bool) {
        guard head.count >= 2, head[0] == 5, head[1] == 0 || (credentials && head[1] == 2) else {
            fuzzFailure("established after method selection \(head.prefix(2))")
        }
        var index = 2
        if head[1] == 2 {
            guard head.count >= 4, head[2] == 1, head[3] == 0 else { fuzzFailure("established after authentication \(head.prefix(4))") }
            index = 4
        }
        guard head.count >= index + 5, head[index] == 5, head[index + 1] == 0 else { fuzzFailure("established after a bad reply") }
        let length: Int
        switch head[index + 3] {
        case 1: length = 4 + 4 + 2
        case 4: length = 4 + 16 + 2
        case 3: length = 4 + 1 + Int(head[index + 4]) + 2
        default: fuzzFailure("established after address type \(head[index + 3])")
        }
        guard head.count == index + length else { fuzzFailure("the reply is \(head.count - index) bytes, not \(length)") }
    }
}
