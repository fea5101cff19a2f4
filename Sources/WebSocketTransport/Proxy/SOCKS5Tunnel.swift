// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A tunnel through a SOCKS5 proxy (RFC 1928): a ``TransportLayer`` that negotiates a method (no
/// authentication, or a user name and password, RFC 1929), asks the proxy to CONNECT to the target,
/// reads its reply, and then carries bytes both ways unchanged.
///
/// ```swift
/// var tunnel = try SOCKS5Tunnel(host: "example.com", port: 443)   // socks5h: the proxy resolves the name
/// tunnel.withPendingOutput { socket.write($0) }                    // 05 01 00
/// tunnel.receive(bytesFromProxy)                                   // 05 00, then the reply to CONNECT
/// ```
///
/// - The target is sent as given: a host name as ATYP 3 (the proxy resolves it: `socks5h://`), an
///   IPv4 or IPv6 address as ATYP 1 or 4. For a `socks5://` proxy the caller resolves the name and
///   makes the tunnel with an address.
/// - The greeting is written when the layer is made; it offers "no authentication required" (0x00),
///   and with credentials also "username/password" (0x02), as curl does. Each later message is
///   written when the proxy's answer to the previous one has arrived.
/// - ``status`` becomes ``TransportLayerStatus/established`` once the reply to CONNECT, bound address
///   and port included, has arrived with REP 0; a failure is ``WebSocketError/proxy(_:)``:
///   ``ProxyError/Code/refused`` with ``ProxyError/socksReply`` for a REP other than 0 (decided at
///   that byte: what follows it is not waited for), ``ProxyError/Code/noAcceptableMethods`` for
///   method `0xFF`, ``ProxyError/Code/unexpectedMethod`` for a method not offered,
///   ``ProxyError/Code/authenticationFailed`` for an RFC 1929 status other than 0,
///   ``ProxyError/Code/malformedReply`` for a version byte other than 5 (1 in the authentication
///   reply) or an unknown address type, ``ProxyError/Code/endOfStream`` for the stream ending first.
///   The reserved byte of the reply is not checked (RFC 1928 §6 marks it reserved; proxies in the
///   field are not all careful with it).
/// - Bytes after the reply belong to the layer above (``read(into:)``); bytes sent before the tunnel
///   is up are held (up to ``ProxyLimits/maxBufferedSend``) and written after the request once the
///   proxy has said yes.
/// - Once established, the stream below ending is the tunnel's clean end.
///
/// Every reply is read at any split, each byte looked at once; the largest (a 255-byte bound name) is
/// 262 bytes, so nothing else needs a limit.
public struct SOCKS5Tunnel: TransportLayer {
    /// Where the tunnel is.
    public private(set) var status = TransportLayerStatus.establishing

    private enum Phase: Sendable {
        /// Waiting for `VER METHOD`.
        case method
        /// Waiting for the RFC 1929 `VER STATUS`.
        case authentication
        /// Waiting for `VER REP RSV ATYP BND.ADDR BND.PORT`; `length` once ATYP (and a name's length)
        /// say how long it is.
        case reply(length: Int?)
        /// Passing bytes through (or failed).
        case done
    }

    private var phase = Phase.method
    /// The bytes of the reply being read.
    private var reply: [UInt8] = []
    private let offeredMethods: [UInt8]
    private let credentials: ProxyCredentials?
    private let request: [UInt8]
    private let limits: ProxyLimits
    /// To the proxy, from it, and held until it says yes.
    private var streams: TunnelStreams

    /// A tunnel to `host` and `port` whose greeting is ready to be written.
    ///
    /// - Parameters:
    ///   - host: the target: a host name, sent for the proxy to resolve (ATYP 3, at most 255 bytes),
    ///     or an IPv4 or IPv6 address (ATYP 1 or 4; IPv6 with or without brackets, its zone dropped).
    ///   - port: the target's port.
    ///   - credentials: for the username/password method (RFC 1929); each part 1 to 255 bytes of UTF-8.
    ///     Default none.
    ///   - limits: what the layer may hold; default ``ProxyLimits/init()``.
    /// - Throws: ``ProxyError/Code/invalidTarget`` for a host that is neither a name nor an address, or
    ///   a name longer than 255 bytes; ``ProxyError/Code/invalidCredentials`` for a user name or a
    ///   password not 1 to 255 bytes.
    public init(host: String, port: UInt16, credentials: ProxyCredentials? = nil, limits: ProxyLimits = ProxyLimits())
        throws(ProxyError)
    {
        let target = try TunnelTarget(host: host)
        if case .name(let name) = target, name.utf8.count > 255 {
            throw ProxyError(.invalidTarget, reason: "a SOCKS5 host name is at most 255 bytes (RFC 1928 §5)")
        }
        if let credentials { try SOCKS5Messages.checkCredentials(credentials) }
        self.credentials = credentials
        self.limits = limits
        streams = TunnelStreams(maxBufferedSend: limits.maxBufferedSend)
        offeredMethods = credentials == nil
            ? [SOCKS5Messages.noAuthentication]
            : [SOCKS5Messages.noAuthentication, SOCKS5Messages.usernamePassword]
        request = SOCKS5Messages.connectRequest(to: target, port: port)
        streams.output.append(SOCKS5Messages.greeting(offering: offeredMethods))
    }

    /// Takes the proxy's bytes: its replies while establishing, then the target's bytes.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        switch status {
        case .establishing:
            var index = 0
            while index < bytes.count, case .establishing = status {
                step(bytes[index])
                index += 1
            }
            if case .established = status, index < bytes.count {
                streams.inbound.append(UnsafeRawBufferPointer(rebasing: bytes[index...]))
            }
        case .established:
            streams.inbound.append(bytes)
        case .ended, .failed:
            break
        }
    }

    /// One byte of a reply.
    private mutating func step(_ byte: UInt8) {
        reply.append(byte)
        switch phase {
        case .method:
            // RFC 1928 §3: the server "selects from one of the methods given in METHODS, and sends a
            // METHOD selection message": VER METHOD.
            if reply.count == 1, byte != SOCKS5Messages.version {
                return fail(.malformedReply, "version 0x\(HexByte.text(byte)) in the method selection, not 5")
            }
            guard reply.count == 2 else { return }
            reply.removeAll(keepingCapacity: true)
            // RFC 1928 §3: "If the selected METHOD is X'FF', none of the methods listed by the client
            // are acceptable, and the client MUST close the connection."
            if byte == SOCKS5Messages.noAcceptableMethods { return fail(.noAcceptableMethods, "") }
            guard offeredMethods.contains(byte) else {
                return fail(.unexpectedMethod, "method 0x\(HexByte.text(byte))")
            }
            if byte == SOCKS5Messages.usernamePassword, let credentials {
                streams.output.append(SOCKS5Messages.authentication(user: Array(credentials.user.utf8),
                                                            password: Array(credentials.password.utf8)))
                phase = .authentication
            } else {
                streams.output.append(request)
                phase = .reply(length: nil)
            }
        case .authentication:
            // RFC 1929 §2: "VER STATUS", the version of the subnegotiation being 1.
            if reply.count == 1, byte != SOCKS5Messages.authenticationVersion {
                return fail(.malformedReply, "version 0x\(HexByte.text(byte)) in the authentication reply, not 1")
            }
            guard reply.count == 2 else { return }
            reply.removeAll(keepingCapacity: true)
            // RFC 1929 §2: "A STATUS field of X'00' indicates success. If the server returns a
            // `failure' (STATUS value other than X'00') status, it MUST close the connection."
            guard byte == 0 else { return fail(.authenticationFailed, "status 0x\(HexByte.text(byte))") }
            streams.output.append(request)
            phase = .reply(length: nil)
        case .reply(let length):
            switch reply.count {
            case 1:
                if byte != SOCKS5Messages.version {
                    return fail(.malformedReply, "version 0x\(HexByte.text(byte)) in the reply, not 5")
                }
            case 2:
                let code = SOCKS5ReplyCode(rawValue: byte)
                if code != .succeeded {
                    return fail(ProxyError(.refused, socksReply: code))
                }
            case 3:
                break  // RSV
            case 4:
                // RFC 1928 §5: ATYP 1, a 4-byte IPv4 address; 3, a length byte and a name; 4, a 16-byte
                // IPv6 address. Then the 2-byte port.
                switch byte {
                case 0x01: phase = .reply(length: 4 + 4 + 2)
                case 0x04: phase = .reply(length: 4 + 16 + 2)
                case 0x03: break
                default: return fail(.malformedReply, "address type 0x\(HexByte.text(byte)) in the reply")
                }
            case 5 where length == nil:
                phase = .reply(length: 4 + 1 + Int(byte) + 2)
            default:
                if reply.count == length { established() }
            }
        case .done:
            preconditionFailure("a SOCKS5 reply byte after the tunnel was set up")
        }
    }

    private mutating func established() {
        phase = .done
        reply = []
        status = .established
        streams.established()
    }

    /// The stream below ended: before the reply, a failure (``ProxyError/Code/endOfStream``); after
    /// it, the tunnel's end.
    public mutating func receiveEOF() {
        switch status {
        case .establishing: fail(.endOfStream, "")
        case .established: status = .ended(clean: true)
        case .ended, .failed: break
        }
    }

    /// Moves up to `buffer.count` of the target's bytes into `buffer`; returns how many.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        streams.inbound.read(into: buffer)
    }

    /// Takes bytes for the target: held while establishing, then written after the request.
    public mutating func send(_ bytes: UnsafeRawBufferPointer) {
        if let error = streams.send(bytes, in: status) { fail(error) }
    }

    /// Nothing to do: the tunnel has no closing of its own (the socket's shutdown below ends it).
    public mutating func finishSending() {}

    /// The number of bytes waiting to go to the proxy.
    public var pendingOutputCount: Int { streams.output.count }

    /// Lends the bytes waiting to go to the proxy to `write`, which returns how many it wrote.
    public mutating func withPendingOutput(_ write: (UnsafeRawBufferPointer) -> Int) {
        streams.output.withBytes(write)
    }

    private mutating func fail(_ code: ProxyError.Code, _ reason: String) {
        fail(ProxyError(code, reason: reason))
    }

    private mutating func fail(_ error: ProxyError) {
        phase = .done
        reply = []
        status = .failed(.proxy(error))
        // The handshake's own messages still go out (so that what is written depends on the input,
        // not on when it was taken); the bytes from above never do.
        streams.failed()
    }

    /// Bytes of a reply held so far (for memory checks in tests and fuzzing: at most 262).
    @_spi(Testing) public var bufferedReplyByteCount: Int { reply.count }
    /// Bytes sent from above and held until the tunnel is up.
    @_spi(Testing) public var heldSendCount: Int { streams.held.count }
}
