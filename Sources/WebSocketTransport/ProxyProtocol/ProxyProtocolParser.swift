// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// An incremental, bounded parser of the PROXY protocol header (HAProxy's specification, versions 1 and
/// 2) that a load balancer or proxy sends first on each connection it relays, to say which client the
/// connection is for.
///
/// A server that sits behind such a proxy feeds it the first bytes of each accepted connection, as they
/// arrive, until it answers something other than ``Outcome/needMore``:
///
/// ```swift
/// var parser = ProxyProtocolParser()
/// switch bytes.withUnsafeBytes({ parser.parse($0) }) {
/// case .needMore:
///     break                                   // read more; every byte given is held
/// case .complete(let header, let consumed):
///     let client = header.source ?? peer      // nil: a health check, or UNKNOWN
///     startTLSOrWebSocket(with: bytes[consumed...])   // the rest is the client's
/// case .failed(let error):
///     log(error); close()                     // the specification says: abort the connection
/// }
/// ```
///
/// The two versions are told apart by their first byte (version 2's signature begins with CR, version
/// 1's `PROXY ` with `P`), and anything that is neither fails at the first byte that differs, as does a
/// version 2 header's version, command, family or length at the byte that carries it: the parser does
/// not wait for bytes that cannot make the header valid. It looks at each byte once, holds only the
/// header (at most 107 bytes for version 1, ``maxHeaderBytes`` for version 2, checked before anything is
/// held for it), and gives the same outcome however the bytes are split. It never traps, whatever the
/// bytes.
///
/// Accept the header only from proxies you trust (``TrustedProxies``), and only on a listener configured
/// for it: the specification says that a receiver "MUST not try to guess whether the protocol header is
/// present or not", since a client that could send one would choose its own address.
///
/// Specification: <https://www.haproxy.org/download/2.9/doc/proxy-protocol.txt>
public struct ProxyProtocolParser: Sendable {
    /// What the bytes given so far amount to.
    public enum Outcome: Sendable, Hashable {
        /// The header is not complete yet; every byte given was consumed and is held.
        case needMore
        /// The header is complete. `consumed` is how many bytes of the last call's input belong to it;
        /// the bytes after them belong to the layer above (TLS, or the WebSocket handshake). A call
        /// after completion returns the header again with `consumed` 0.
        case complete(ProxyProtocolHeader, consumed: Int)
        /// The bytes are not a header that may be accepted; close the connection. Every later call
        /// returns the same.
        case failed(ProxyProtocolError)
    }

    /// The most bytes a version 2 header may have, its 16 fixed bytes included: a header that announces
    /// more fails with ``ProxyProtocolError/Code/headerTooLarge`` as soon as its length arrives.
    /// Default 4096. The format allows 16 + 65,535 bytes, but the largest address block is 216 bytes (two
    /// Unix paths) and what proxies add (ALPN, the server name, a 128-byte unique ID, TLS details, a
    /// cloud provider's endpoint ID) is a few hundred more: the specification wants a header to fit in
    /// one 536-byte segment. 4 KiB holds any of them many times over, while a peer that announces 64 KiB
    /// cannot make every pending connection hold 64 KiB. Values below 16 count as 16 (a header of no
    /// addresses). A version 1 line has its own fixed limit, 107 bytes.
    public let maxHeaderBytes: Int

    enum Phase: Sendable {
        /// Nothing received yet.
        case start
        /// Reading a version 1 line.
        case version1
        /// Reading a version 2 header.
        case version2
        /// The outcome, returned again by every later call.
        case finished(Outcome)
    }

    private(set) var phase = Phase.start
    /// The header's bytes so far (all of them: the parser keeps nothing else).
    var buffer: [UInt8] = []

    /// A parser, with the limit above.
    public init(maxHeaderBytes: Int = 4096) {
        self.maxHeaderBytes = max(Self.version2FixedBytes, maxHeaderBytes)
    }

    /// Bytes held for a header not complete yet (for tests and fuzzers: never more than 107 or
    /// ``maxHeaderBytes``).
    @_spi(Testing) public var bufferedByteCount: Int { buffer.count }

    /// Consumes the next bytes of the connection, up to the end of the header at most.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        var index = 0
        if case .start = phase {
            guard let first = bytes.first else { return .needMore }
            switch first {
            case Self.version2Signature[0]:
                phase = .version2
            case Self.version1Prefix[0]:
                phase = .version1
                buffer.reserveCapacity(Self.version1MaxLine)
            default:
                return finish(.failed(ProxyProtocolError(.notProxyProtocol, at: 0, reason: Self.notSignature(first))))
            }
        }
        let result: Result<ProxyProtocolHeader, ProxyProtocolError>?
        switch phase {
        case .start:
            preconditionFailure("the phase was set above")
        case .version1:
            result = readVersion1(bytes, &index)
        case .version2:
            result = readVersion2(bytes, &index)
        case .finished(let outcome):
            if case .complete(let header, _) = outcome { return .complete(header, consumed: 0) }
            return outcome
        }
        switch result {
        case nil:
            return .needMore
        case .success(let header)?:
            return finish(.complete(header, consumed: index))
        case .failure(let error)?:
            return finish(.failed(error))
        }
    }

    /// Consumes the next bytes of the connection, as the `UnsafeRawBufferPointer` variant does.
    public mutating func parse(_ bytes: some Collection<UInt8>) -> Outcome {
        if let outcome = bytes.withContiguousStorageIfAvailable({ parse(UnsafeRawBufferPointer($0)) }) {
            return outcome
        }
        return Array(bytes).withUnsafeBytes { parse($0) }
    }

    private mutating func finish(_ outcome: Outcome) -> Outcome {
        phase = .finished(outcome)
        buffer = []
        return outcome
    }

    static func notSignature(_ byte: UInt8) -> String {
        "byte 0x\(String(byte, radix: 16, uppercase: true)) starts neither the version 2 signature nor \"PROXY \""
    }
}
