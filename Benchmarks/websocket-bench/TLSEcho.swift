// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import EchoServerSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketPOSIX
import WebSocketTLS
import TLSTestSupport

/// TLS: our WebSocket client and server over `wss://` (WebSocketPOSIX with a `TLSContext`) against the
/// same plaintext bytes through the same TLS sessions over plain sockets in the same process, and
/// `wss://` connection cycles against bare TLS handshakes. The ratio is the cost of the WebSocket
/// layer over TLS alone; the certificates are made at start-up (the test PKI).
extension Workloads {
    static func tlsEcho(name: String, size: Int) -> Workload {
        Workload(name: name, run: {
            let ours = WebSocketEcho(size: size, tls: true)
            let theirs = RawTLSEcho(requestSize: Fixtures.frames(count: 1, size: size, fromClient: true).count,
                                    replySize: Fixtures.frames(count: 1, size: size, fromClient: false).count)
            let rates = oneConnection(ours, theirs)
            func describe(_ rate: Double) -> String {
                let roundTrips = "\(Int(rate.rounded())) round trips/s"
                return size < 64 << 10 ? roundTrips : "\(roundTrips) (\(formatRate(rate * Double(size))))"
            }
            report(name, ours: describe(rates.ours), baselineName: "plain TLS", theirs: describe(rates.theirs),
                   ratio: rates.ours / rates.theirs)
        }, frames: nil)
    }

    /// A `wss://` connection cycle (TCP, TLS handshake, opening handshake, closing handshake, close)
    /// against a bare TLS handshake over TCP (connect, handshake, close_notify, close), one at a time.
    static func tlsHandshakes() -> Workload {
        Workload(name: "tls-handshakes", run: {
            let ours = WebSocketEcho(size: 1, tls: true)
            let theirs = RawTLSEcho(requestSize: 1, replySize: 1)
            var rates = (ours: 0.0, theirs: 0.0)
            for _ in 0..<2 {
                rates.ours = max(rates.ours, Measure.rate(work: 1, runs: 3, seconds: 0.5) { ours.close(ours.connect()) })
                rates.theirs = max(rates.theirs, Measure.rate(work: 1, runs: 3, seconds: 0.5) { theirs.close(theirs.connect()) })
            }
            ours.stop()
            theirs.stop()
            report("tls-handshakes", ours: "\(Int(rates.ours.rounded())) wss connections/s",
                   baselineName: "TLS handshakes", theirs: "\(Int(rates.theirs.rounded())) handshakes/s",
                   ratio: rates.ours / rates.theirs)
        }, frames: nil)
    }
}

extension Workloads {
    /// `wss://` connection cycles whose TLS handshakes resume the previous connection's session (a
    /// client with a ``TLSSessionCache``, the server's default TLS 1.3 tickets) against bare full TLS
    /// handshakes, with the same cycles without resumption measured in the same run for scale.
    static func tlsResumption() -> Workload {
        Workload(name: "tls-resumption", run: {
            let resumed = WebSocketEcho(size: 1, tls: true, clientTLS: BenchTLS.resumingClient)
            let full = WebSocketEcho(size: 1, tls: true)
            let bare = RawTLSEcho(requestSize: 1, replySize: 1)
            var rates = (resumed: 0.0, full: 0.0, bare: 0.0)
            for _ in 0..<2 {
                rates.resumed = max(rates.resumed, Measure.rate(work: 1, runs: 3, seconds: 0.5) { resumed.close(resumed.connect()) })
                rates.full = max(rates.full, Measure.rate(work: 1, runs: 3, seconds: 0.5) { full.close(full.connect()) })
                rates.bare = max(rates.bare, Measure.rate(work: 1, runs: 3, seconds: 0.5) { bare.close(bare.connect()) })
            }
            // Every resumed connection took the cached session and stored its own: one is left.
            guard BenchTLS.resumingCache.count == 1 else { fail("tls-resumption: no session was cached") }
            resumed.stop()
            full.stop()
            bare.stop()
            report("tls-resumption",
                   ours: "\(Int(rates.resumed.rounded())) resumed wss connections/s (\(Int(rates.full.rounded())) without resumption)",
                   baselineName: "full TLS handshakes", theirs: "\(Int(rates.bare.rounded())) handshakes/s",
                   ratio: rates.resumed / rates.bare)
        }, frames: nil)
    }
}

/// The contexts of the TLS workloads: a server with the test PKI's `localhost` certificate, a client
/// that trusts only the test CA.
enum BenchTLS {
    static let server: TLSContext = {
        let pki = TestPKI.shared
        do throws(WebSocketError) {
            return try TLSContext(.server(certificateChain: pki.server.certificate, privateKey: pki.server.key))
        } catch {
            fail("TLS server context: \(error)")
        }
    }()

    /// The session cache of ``resumingClient``.
    static let resumingCache = TLSSessionCache(capacity: 16)

    /// ``client`` with a session cache: every connection after the first resumes.
    static let resumingClient: TLSContext = {
        var configuration = client.configuration
        configuration.sessionCache = resumingCache
        do throws(WebSocketError) {
            return try TLSContext(configuration)
        } catch {
            fail("TLS client context: \(error)")
        }
    }()

    static let client: TLSContext = {
        var configuration = TLSConfiguration.client()
        configuration.trustRoots = .only([TestPKI.shared.ca.certificate])
        do throws(WebSocketError) {
            return try TLSContext(configuration)
        } catch {
            fail("TLS client context: \(error)")
        }
    }()
}

/// A TLS session over a blocking descriptor: plaintext in and out, the ciphertext moved by hand.
///
/// `@unchecked Sendable`: used by one thread at a time (a client's round trips, or its server thread).
final class TLSStream: @unchecked Sendable {
    let fd: Int32
    var session: TLSSession
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)
    private var plaintext: [UInt8] = []

    init(fd: Int32, session: TLSSession) {
        self.fd = fd
        self.session = session
    }

    /// Runs the handshake to its end.
    func handshake() -> Bool {
        while case .establishing = session.status {
            guard flush(), readSome() else { return false }
        }
        if case .established = session.status { return flush() }
        return false
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        session.send(bytes)
        return flush()
    }

    func readExactly(_ count: Int) -> Bool {
        while plaintext.count < count {
            guard readSome() else { return false }
        }
        plaintext.removeFirst(count)
        return true
    }

    func close() {
        session.finishSending()
        _ = flush()
        RawSocket.closeDescriptor(fd)
    }

    private func flush() -> Bool {
        var ok = true
        while ok, session.pendingOutputCount > 0 {
            session.withPendingOutput { bytes in
                ok = RawSocket.writeAll(fd, bytes)
                return ok ? bytes.count : 0
            }
        }
        return ok
    }

    /// One read from the socket into the session, and what it decoded into `plaintext`.
    private func readSome() -> Bool {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.withUnsafeBytes { session.receive(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        while true {
            let decoded = buffer.withUnsafeMutableBytes { session.read(into: $0) }
            if decoded == 0 { break }
            plaintext += buffer[..<decoded]
        }
        if case .failed(let error) = session.status { fail("plain TLS echo: \(error)") }
        return flush()
    }
}

/// The baseline: `RawEcho`'s traffic, each side through a `TLSSession` of the same contexts.
final class RawTLSEcho: EchoSystem {
    let port: UInt16
    let requestSize: Int
    let replySize: Int
    let stopping: StopFlag
    let accepting: JoinableThread
    let request: [UInt8]

    init(requestSize: Int, replySize: Int) {
        let (listener, port) = RawSocket.listener()
        self.port = port
        self.requestSize = requestSize
        self.replySize = replySize
        request = (0..<requestSize).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let stopping = StopFlag()
        self.stopping = stopping
        accepting = RawSocket.acceptLoop(listener, until: stopping) { fd in
            RawTLSEcho.serve(fd, requestSize: requestSize, replySize: replySize)
        }
    }

    func connect() -> TLSStream {
        let fd = RawSocket.connected(port: port)
        do throws(WebSocketError) {
            let stream = TLSStream(fd: fd, session: try BenchTLS.client.makeClientSession(serverName: "localhost"))
            guard stream.handshake() else { fail("plain TLS echo client: handshake") }
            return stream
        } catch {
            fail("plain TLS echo client: \(error)")
        }
    }

    func roundTrip(_ client: TLSStream) {
        guard request.withUnsafeBytes({ client.write($0) }), client.readExactly(replySize) else {
            fail("plain TLS echo client: the connection ended")
        }
    }

    func close(_ client: TLSStream) { client.close() }

    func stop() {
        stopping.raise()
        accepting.join()
    }

    static func serve(_ fd: Int32, requestSize: Int, replySize: Int) {
        do throws(WebSocketError) {
            let stream = TLSStream(fd: fd, session: try BenchTLS.server.makeServerSession())
            guard stream.handshake() else {
                RawSocket.closeDescriptor(fd)
                return
            }
            let reply = [UInt8](repeating: 7, count: replySize)
            while stream.readExactly(requestSize), reply.withUnsafeBytes({ stream.write($0) }) {}
            stream.close()
        } catch {
            fail("plain TLS echo server: \(error)")
        }
    }
}
