// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// (A server) Where an accepted connection is with its PROXY protocol header
/// (``TransportOptions/proxyProtocol``).
package enum ProxyHeaderState: Sendable {
    /// None is read: the PROXY protocol is not configured, or the header has been dealt with.
    case notExpected
    /// The peer is a trusted proxy: the connection must begin with a header, read here. Boxed
    /// (`indirect`): every session carries this state and checks it on every read, while a parser
    /// exists only until the header is read.
    indirect case required(ProxyProtocolParser)
    /// The peer is not trusted: a connection that begins with a header's signature ends; any other
    /// is a direct client. The `matched` bytes read so far are the first of a signature's (version
    /// 1's `PROXY `, or version 2's 12 bytes `\r\n\r\n\0\r\nQUIT\n` when `version2`), held back
    /// until a byte settles it.
    case refused(matched: Int, version2: Bool)
}

/// The signatures of the two versions: the bytes that begin a header and no HTTP request.
private let proxySignatureV1: [UInt8] = Array("PROXY ".utf8)
private let proxySignatureV2: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

extension SocketSession {
    /// (A server, before any byte is read) Sets what the connection from `peer` must begin with,
    /// under `options`' ``TransportOptions/proxyProtocol``.
    package mutating func expectProxyHeader(from peer: SocketAddress?, options: TransportOptions) {
        guard let trusted = options.proxyProtocol else { return }
        if let peer, trusted.contains(peer) {
            proxyHeader = .required(ProxyProtocolParser(maxHeaderBytes: options.maxProxyHeaderBytes))
        } else {
            proxyHeader = .refused(matched: 0, version2: false)
        }
    }

    /// Whether bytes read still go to the PROXY header first (not in place, not to the connection).
    package var awaitsProxyHeader: Bool {
        if case .notExpected = proxyHeader { return false }
        return true
    }

    /// The bytes read while ``awaitsProxyHeader``: the header's, then the rest to the pipeline.
    mutating func receivedBeforeProxyHeader(_ bytes: UnsafeRawBufferPointer) {
        switch proxyHeader {
        case .notExpected:
            pipeline.receive(bytes)
        case .required(var parser):
            switch parser.parse(bytes) {
            case .needMore:
                proxyHeader = .required(parser)
            case .complete(let header, let consumed):
                proxyHeader = .notExpected
                proxied = header
                if consumed < bytes.count { pipeline.receive(UnsafeRawBufferPointer(rebasing: bytes[consumed...])) }
            case .failed(let error):
                proxyHeader = .notExpected
                pipeline.fail(.proxyProtocol(error))
            }
        case .refused(let matched, let version2):
            refuseProxyHeader(bytes, matched: matched, version2: version2)
        }
    }

    /// (An untrusted peer) Compares what it sent with a signature's first bytes: a whole signature
    /// ends the connection; the first byte that differs makes it a direct client, and everything
    /// held back goes to the connection with the rest. A direct client's request may begin with `P`
    /// (`POST`, `PUT`, HTTP/2's `PRI`) or with an empty line (RFC 9112 §2.2): each differs from the
    /// signature by its second or third byte.
    private mutating func refuseProxyHeader(_ bytes: UnsafeRawBufferPointer, matched: Int, version2: Bool) {
        guard let first = bytes.first else { return }
        let isVersion2 = matched > 0 ? version2 : first == proxySignatureV2[0]
        let signature = isVersion2 ? proxySignatureV2 : proxySignatureV1
        var count = matched
        for byte in bytes {
            guard byte == signature[count] else {
                // A direct client: what earlier reads held back, then all of this read.
                proxyHeader = .notExpected
                if matched > 0 { signature.withUnsafeBytes { pipeline.receive(UnsafeRawBufferPointer(rebasing: $0[..<matched])) } }
                pipeline.receive(bytes)
                return
            }
            count += 1
            if count == signature.count {
                proxyHeader = .notExpected
                pipeline.fail(.proxyProtocol(ProxyProtocolError(.untrustedSource, at: 0,
                                                                reason: "a PROXY header from a peer that is not a trusted proxy")))
                return
            }
        }
        proxyHeader = .refused(matched: count, version2: isVersion2)
    }
}
