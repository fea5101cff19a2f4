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
    /// is a direct client. `held`: the first `count` bytes of `signature` (version 1's `PROXY `, or
    /// version 2's 12 bytes), all that was read so far, held back until a byte settles it; `nil`
    /// before the first byte.
    case refused(held: (signature: [UInt8], count: Int)?)
}

extension SocketSession {
    /// (A server, before any byte is read) Sets what the connection from `peer` must begin with,
    /// under `options`' ``TransportOptions/proxyProtocol``.
    package mutating func expectProxyHeader(from peer: SocketAddress?, options: TransportOptions) {
        guard let trusted = options.proxyProtocol else { return }
        if let peer, trusted.contains(peer) {
            proxyHeader = .required(ProxyProtocolParser(maxHeaderBytes: options.maxProxyHeaderBytes))
        } else {
            proxyHeader = .refused(held: nil)
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
        case .refused(let held):
            refuseProxyHeader(bytes, held: held)
        }
    }

    /// (An untrusted peer) Compares what it sent with a signature's first bytes: a whole signature
    /// ends the connection; the first byte that differs makes it a direct client, and everything
    /// held back goes to the connection with the rest. A direct client's request may begin with `P`
    /// (`POST`, `PUT`, HTTP/2's `PRI`) or with an empty line (RFC 9112 §2.2): each differs from the
    /// signature by its second or third byte.
    private mutating func refuseProxyHeader(_ bytes: UnsafeRawBufferPointer, held: (signature: [UInt8], count: Int)?) {
        guard let first = bytes.first else { return }
        let signature = held?.signature
            ?? (first == ProxyProtocolParser.version2Signature[0] ? ProxyProtocolParser.version2Signature : ProxyProtocolParser.version1Prefix)
        let heldCount = held?.count ?? 0
        var count = heldCount
        for byte in bytes {
            guard byte == signature[count] else {
                // A direct client: what earlier reads held back, then all of this read.
                proxyHeader = .notExpected
                if heldCount > 0 { signature.withUnsafeBytes { pipeline.receive(UnsafeRawBufferPointer(rebasing: $0[..<heldCount])) } }
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
        proxyHeader = .refused(held: (signature, count))
    }
}
