// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore
import WebSocketTransport

/// One connected socket to a Redis server, with the TLS layer over it for `rediss://`: bytes in for
/// the ``RedisClient``, bytes out from it. It belongs to the connection's thread alone.
struct RedisStream: ~Copyable {
    let socket: Socket
    var layer: (any TransportLayer)?
    /// Bytes for the socket not written yet (the kernel's buffer was full).
    var unwritten = ByteQueue()
    var readBuffer: [UInt8]
    var decoded: [UInt8]

    /// Connects to the endpoint within `deadline`, and puts the TLS layer on for `rediss://`.
    static func connect(to endpoint: RedisEndpoint, tls: (any TLSLayerFactory)?, deadline: Connection.Instant,
                        readBufferSize: Int, system: SystemCalls) throws(RedisError) -> RedisStream {
        let addresses: [SocketAddress]
        var serverName = "localhost"
        let isUnix: Bool
        switch endpoint.address {
        case .tcp(let host, let port):
            switch AddressResolution.resolve(host: host, port: port) {
            case .success(let resolved): addresses = resolved
            case .failure(let failure):
                throw RedisError(.connectFailed, reason: "cannot resolve \(host): \(failure.message)")
            }
            serverName = host
            isUnix = false
        case .unix(let path):
            do throws(Errno) {
                addresses = [try SocketAddress.unix(path: path)]
            } catch {
                throw RedisError(.connectFailed, reason: "\(path): \(error)")
            }
            isUnix = true
        }
        var layer: (any TransportLayer)? = nil
        if endpoint.usesTLS {
            guard let tls else {
                throw RedisError(.connectFailed, reason: "rediss:// needs a TLS context (RedisConnection.Options.tls)")
            }
            do throws(WebSocketError) {
                layer = try tls.makeClientLayer(serverName: serverName)
            } catch {
                throw RedisError(.connectFailed, reason: "TLS: \(error)")
            }
        }
        switch Socket.connect(to: addresses, deadline: deadline, system: system) {
        case .success(let socket):
            socket.applyConnectedOptions(TransportOptions(), isUnixSocket: isUnix)
            return RedisStream(socket: socket, layer: layer, readBufferSize: readBufferSize)
        case .failure(.timedOut):
            throw RedisError(.timedOut, reason: "connecting to \(endpoint)")
        case .failure(.failed(_, let error)):
            throw RedisError(.connectFailed, reason: "\(endpoint): \(error)")
        }
    }

    private init(socket: Socket, layer: (any TransportLayer)?, readBufferSize: Int) {
        self.socket = socket
        self.layer = layer
        readBuffer = [UInt8](repeating: 0, count: max(readBufferSize, 512))
        decoded = layer == nil ? [] : [UInt8](repeating: 0, count: max(readBufferSize, 512))
    }

    deinit { socket.close() }

    /// Whether bytes wait for the socket.
    var hasUnwritten: Bool { !unwritten.isEmpty || (layer?.pendingOutputCount ?? 0) > 0 }

    /// Queues the client's bytes (through TLS when there is a layer).
    mutating func queue(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if layer != nil {
            bytes.withUnsafeBytes { layer!.send($0) }
        } else {
            unwritten.append(bytes)
        }
    }

    /// Writes what the kernel takes now.
    mutating func write() throws(RedisError) {
        if layer != nil {
            layer!.withPendingOutput { raw in
                unwritten.append(raw)
                return raw.count
            }
        }
        // Taken from the front without moving the rest (a partial write of a long backlog moved
        // all of it each time with `removeFirst`).
        while !unwritten.isEmpty {
            var failure: Errno? = nil
            var written = 0
            unwritten.withBytes { raw in
                do throws(Errno) {
                    written = try socket.writeSome(raw)
                } catch {
                    failure = error
                }
                return written
            }
            if let failure { throw RedisError(.connectionClosed, reason: "writing: \(failure)") }
            if written == 0 { return }
        }
    }

    /// Reads what the socket has now and hands the bytes for the client to `deliver` (through TLS,
    /// every byte the layer decoded, in pieces of at most one buffer). Returns `false` at the end of
    /// the stream.
    mutating func read(_ deliver: (ArraySlice<UInt8>) -> Void) throws(RedisError) -> Bool {
        let outcome: Socket.ReadOutcome
        do throws(Errno) {
            outcome = try readBuffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try socket.read(into: raw) } }.get()
        } catch {
            throw RedisError(.connectionClosed, reason: "reading: \(error)")
        }
        guard layer != nil else {
            switch outcome {
            case .bytes(let count): deliver(readBuffer[..<count])
            case .nothing: break
            case .endOfStream: return false
            }
            return true
        }
        switch outcome {
        case .bytes(let count): readBuffer.withUnsafeBytes { layer!.receive(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        case .endOfStream: layer!.receiveEOF()
        case .nothing: break
        }
        while true {
            let count = decoded.withUnsafeMutableBytes { layer!.read(into: $0) }
            guard count > 0 else { break }
            deliver(decoded[..<count])
        }
        switch layer!.status {
        case .establishing, .established:
            return outcome != .endOfStream
        case .ended:
            return false
        case .failed(let error):
            throw RedisError(.connectFailed, reason: "TLS: \(error)")
        }
    }
}
