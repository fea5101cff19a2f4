#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WebSocketCore
import WebSocketTransport
@testable import WebSocketPOSIX

/// Faults a test wants some system calls to report, consumed one per call, then the real call.
final class Faults: Sendable {
    enum Call: Hashable, Sendable { case receive, send, connect, accept, poll }
    enum Fault: Sendable {
        /// Fail with EINTR (connect: after really starting it, as a signal arriving mid-call does).
        case interrupt
        /// Fail with EAGAIN without calling.
        case wouldBlock
        /// Send at most this many bytes.
        case short(Int)
        /// Report a timeout (poll) or EINPROGRESS (connect) without calling.
        case stall
    }

    private let planned = Locked<[Call: [Fault]]>([:])
    private let counts = Locked<[Call: Int]>([:])
    /// When set, every call of these kinds draws this fault forever.
    private let always = Locked<[Call: Fault]>([:])

    func plan(_ call: Call, _ faults: [Fault]) { planned.withLock { $0[call, default: []] += faults } }
    func always(_ call: Call, _ fault: Fault?) { always.withLock { $0[call] = fault } }
    func calls(_ call: Call) -> Int { counts.withLock { $0[call, default: 0] } }

    fileprivate func next(_ call: Call) -> Fault? {
        counts.withLock { $0[call, default: 0] += 1 }
        if let fault = always.withLock({ $0[call] }) { return fault }
        return planned.withLock { plans in
            guard var list = plans[call], !list.isEmpty else { return nil }
            let fault = list.removeFirst()
            plans[call] = list
            return fault
        }
    }

    /// The live system calls, with these faults injected.
    var system: SystemCalls {
        let live = SystemCalls.live
        var system = live
        system.receive = { [self] fd, buffer, count in
            switch next(.receive) {
            case .interrupt?: SystemCalls.setErrno(.interrupted); return -1
            case .wouldBlock?: SystemCalls.setErrno(.wouldBlock); return -1
            case .short(let limit)?: return live.receive(fd, buffer, min(count, limit))
            case .stall?, nil: return live.receive(fd, buffer, count)
            }
        }
        system.send = { [self] fd, buffer, count in
            switch next(.send) {
            case .interrupt?: SystemCalls.setErrno(.interrupted); return -1
            case .wouldBlock?: SystemCalls.setErrno(.wouldBlock); return -1
            case .short(let limit)?: return live.send(fd, buffer, min(count, limit))
            case .stall?, nil: return live.send(fd, buffer, count)
            }
        }
        system.connect = { [self] fd, address, length in
            switch next(.connect) {
            case .interrupt?:
                _ = live.connect(fd, address, length)
                SystemCalls.setErrno(.interrupted)
                return -1
            case .stall?: SystemCalls.setErrno(.inProgress); return -1
            case .wouldBlock?: SystemCalls.setErrno(.wouldBlock); return -1
            case .short?, nil: return live.connect(fd, address, length)
            }
        }
        system.accept = { [self] fd, address, length in
            switch next(.accept) {
            case .interrupt?: SystemCalls.setErrno(.interrupted); return -1
            case .wouldBlock?: SystemCalls.setErrno(.wouldBlock); return -1
            case .short?, .stall?, nil: return live.accept(fd, address, length)
            }
        }
        system.poll = { [self] fds, count, timeout in
            switch next(.poll) {
            case .interrupt?: SystemCalls.setErrno(.interrupted); return -1
            case .stall?: return 0
            case .wouldBlock?:
                // "Ready" at once, whatever the truth: the caller's next call finds out.
                for index in 0..<Int(count) { fds[index].revents = fds[index].events }
                return Int32(count)
            case .short?, nil: return live.poll(fds, count, timeout)
            }
        }
        return system
    }
}

/// A connected pair of Unix stream sockets, the first one with `system`.
func socketPair(system: SystemCalls) throws -> (Socket, Socket) {
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, SocketConstants.stream, 0, &fds) == 0 else { throw Errno.current }
    let first = Socket(adopting: fds[0], system: system)
    let second = Socket(adopting: fds[1], system: .live)
    try first.configureNewDescriptor()
    try second.configureNewDescriptor()
    return (first, second)
}

/// The socket layer under forced EINTR, EAGAIN and short writes (swift-system style mocking).
@Suite("System call shim: EINTR retried, EAGAIN waited for, short writes completed")
struct SyscallShimTests {
    @Test("EINTR on read is retried")
    func readInterrupted() throws {
        let faults = Faults()
        let (socket, peer) = try socketPair(system: faults.system)
        try peer.writeAll(Array("abc".utf8))
        faults.plan(.receive, [.interrupt, .interrupt])
        #expect(try socket.readSome() == Array("abc".utf8))
        #expect(faults.calls(.receive) == 3)
    }

    @Test("EINTR and short writes: every byte arrives, in order")
    func writeInterruptedAndShort() throws {
        let faults = Faults()
        let (socket, peer) = try socketPair(system: faults.system)
        faults.plan(.send, [.interrupt, .short(1), .interrupt, .short(7), .short(1000), .wouldBlock, .short(3)])
        let payload = pattern(200_000, seed: 3)
        let reader = Mailbox<[UInt8]>()
        try spawnDetachedThread {
            var received: [UInt8] = []
            while received.count < payload.count, let bytes = try? peer.readSome(), !bytes.isEmpty { received += bytes }
            reader.put(received)
        }
        try socket.writeAll(payload)
        #expect(reader.take() == payload)
        #expect(faults.calls(.send) > 7)
    }

    @Test("EAGAIN on a timed read: the read waits again, and reports a timeout at the deadline")
    func readWouldBlockTimesOut() throws {
        let faults = Faults()
        let (socket, peer) = try socketPair(system: faults.system)
        try peer.writeAll([1])
        // Readiness that lies: poll says readable, recv says EAGAIN, until the deadline.
        faults.always(.receive, .wouldBlock)
        faults.always(.poll, .wouldBlock)
        let start = now()
        #expect(try socket.readSome(timeout: .milliseconds(50)) == nil)
        #expect(now() - start >= .milliseconds(50))
        faults.always(.receive, nil)
        faults.always(.poll, nil)
        #expect(try socket.readSome() == [1])
    }

    @Test("EAGAIN then data: a spurious wake-up is waited out")
    func readWouldBlockThenData() throws {
        let faults = Faults()
        let (socket, peer) = try socketPair(system: faults.system)
        faults.plan(.receive, [.wouldBlock, .wouldBlock])
        try peer.writeAll([7, 8])
        #expect(try socket.readSome() == [7, 8])
    }

    @Test("EINTR on poll is retried with the time that remains")
    func pollInterrupted() throws {
        let faults = Faults()
        let (socket, peer) = try socketPair(system: faults.system)
        faults.plan(.poll, [.interrupt, .interrupt, .interrupt])
        let start = now()
        #expect(try socket.readSome(timeout: .milliseconds(80)) == nil)
        withExtendedLifetime(peer) {}
        let elapsed = now() - start
        #expect(elapsed >= .milliseconds(80))
        #expect(elapsed < .seconds(2))
    }

    @Test("EINTR on connect: the connect goes on in the background and is waited for, not retried")
    func connectInterrupted() throws {
        let faults = Faults()
        faults.plan(.connect, [.interrupt])
        try withServer { server in
            let endpoint = try WebSocketEndpoint(parsing: server.url())
            let client = try BlockingWebSocket.connect(to: endpoint, subprotocols: [], headers: [:],
                                                       configuration: testConfiguration(), options: testOptions(),
                                                       system: faults.system)
            #expect(faults.calls(.connect) == 1)
            try client.send(text: "after EINTR")
            #expect(try client.receive() == .text("after EINTR"))
            try client.close()
        }
    }

    @Test("A connect that never completes: the connect timeout")
    func connectTimesOut() throws {
        let faults = Faults()
        faults.always(.connect, .stall)
        faults.always(.poll, .stall)
        var options = testOptions()
        options.connectTimeout = .milliseconds(100)
        let start = now()
        let failure = error {
            try BlockingWebSocket.connect(to: WebSocketEndpoint(parsing: "ws://127.0.0.1:9/"), subprotocols: [], headers: [:],
                                          configuration: testConfiguration(), options: options, system: faults.system)
        }
        #expect(failure == .timedOut(.connect))
        #expect(now() - start >= .milliseconds(100))
    }

    @Test("EINTR on accept is retried by the server")
    func acceptInterrupted() throws {
        let faults = Faults()
        faults.plan(.accept, [.interrupt, .interrupt])
        guard case .success(let addresses) = AddressResolution.resolve(host: "127.0.0.1", port: 0, passive: true) else {
            Issue.record("no 127.0.0.1")
            return
        }
        let server = try BlockingWebSocketServer(addresses: addresses, unixSocketPath: nil, configuration: testConfiguration(),
                                                 options: serverOptions(), backlog: 8, system: faults.system)
        let running = try RunningServer(server)
        defer { #expect(running.stop()) }
        let client = try BlockingWebSocket.connect(to: running.url(), options: testOptions())
        try client.send(text: "accepted")
        #expect(try client.receive() == .text("accepted"))
        try client.close()
        #expect(faults.calls(.accept) >= 3)
    }

    @Test("The whole stack under a storm of EINTR, EAGAIN and short writes: a 1 MiB echo arrives intact")
    func storm() throws {
        let faults = Faults()
        // Every call of each kind draws from a long, seeded plan.
        var generator = SeededGenerator(seed: 6455)
        for call in [Faults.Call.receive, .send] {
            let plan: [Faults.Fault] = (0..<5000).compactMap { _ in
                switch generator.next() % 4 {
                case 0: return .interrupt
                case 1: return .wouldBlock
                case 2: return .short(Int(generator.next() % 100) + 1)
                default: return nil
                }
            }
            faults.plan(call, plan)
        }
        faults.plan(.poll, (0..<200).map { _ in .interrupt })
        try withServer { server in
            let endpoint = try WebSocketEndpoint(parsing: server.url())
            let client = try BlockingWebSocket.connect(to: endpoint, subprotocols: [], headers: [:],
                                                       configuration: testConfiguration(), options: testOptions(),
                                                       system: faults.system)
            let payload = pattern(1 << 20, seed: 9)
            try client.send(binary: payload)
            #expect(try client.receive() == .binary(payload))
            try client.send(text: "small")
            #expect(try client.receive() == .text("small"))
            #expect(try client.close().wasClean)
        }
        #expect(faults.calls(.send) > 100)
        #expect(faults.calls(.receive) > 100)
    }
}
