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
    /// The peer is not trusted: its first byte decides whether it begins with a header (then the
    /// connection ends) or is a direct client.
    case refused
}

extension SocketSession {
    /// (A server, before any byte is read) Sets what the connection from `peer` must begin with,
    /// under `options`' ``TransportOptions/proxyProtocol``.
    package mutating func expectProxyHeader(from peer: SocketAddress?, options: TransportOptions) {
        guard let trusted = options.proxyProtocol else { return }
        if let peer, trusted.contains(peer) {
            proxyHeader = .required(ProxyProtocolParser(maxHeaderBytes: options.maxProxyHeaderBytes))
        } else {
            proxyHeader = .refused
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
        case .refused:
            guard let first = bytes.first else { return }
            proxyHeader = .notExpected
            // Version 1 begins with "PROXY ", version 2 with "\r\n\r\n\0\r\nQUIT\n"; a WebSocket
            // request with "GET ".
            if first == UInt8(ascii: "P") || first == 0x0D {
                pipeline.fail(.proxyProtocol(ProxyProtocolError(.untrustedSource, at: 0,
                                                                reason: "a PROXY header from a peer that is not a trusted proxy")))
            } else {
                pipeline.receive(bytes)
            }
        }
    }
}
