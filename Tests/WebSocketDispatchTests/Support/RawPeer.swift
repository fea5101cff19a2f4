#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import WebSocketCore
@testable import WebSocketDispatch

/// A misbehaving peer made of a plain blocking TCP socket: it speaks exactly the bytes a test tells it
/// to. Every read waits at most its timeout (`poll`), so that no test can hang.
///
/// `@unchecked Sendable`: a test uses each raw socket from one task at a time.
final class RawSocket: @unchecked Sendable {
    let fd: Int32
    private(set) var isClosed = false

    init(fd: Int32) { self.fd = fd }

    /// A blocking connection to `127.0.0.1:port`.
    static func connect(port: UInt16) throws -> RawSocket {
        guard let address = try? SocketAddress.resolve(host: "127.0.0.1", port: port).first,
              case .success(let fd) = Socket.makeStream(family: address.family, noDelay: true) else {
            throw TestFailure("socket")
        }
        makeBlocking(fd)
        guard Socket.connect(fd, to: address) == .connected else {
            Socket.close(fd)
            throw TestFailure("connect: errno \(errno)")
        }
        return RawSocket(fd: fd)
    }

    /// Bytes read within `timeout`: `nil` on timeout, `[]` at end of stream (or a reset).
    func read(timeout: Duration = .seconds(5)) -> [UInt8]? {
        guard waitReadable(fd, timeout: timeout) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return [] }
        return Array(buffer[..<count])
    }

    /// Reads until end of stream, for at most `timeout` overall. Returns whether it ended.
    func readUntilEOF(timeout: Duration = .seconds(5)) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            guard let bytes = read(timeout: .milliseconds(100)) else { continue }
            if bytes.isEmpty { return true }
        }
        return false
    }

    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            guard case .bytes(let count) = bytes[offset...].withUnsafeBytes({ Socket.send(fd, $0) }), count > 0 else { return }
            offset += count
        }
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Socket.close(fd)
    }

    deinit { close() }

    /// (As a server) Reads the client's opening handshake request and accepts it with the core,
    /// returning the server connection (for framing what the test sends next).
    func acceptHandshake(timeout: Duration = .seconds(5)) throws -> Connection {
        var server = try Connection(role: .server)
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            guard let bytes = read(timeout: .milliseconds(100)) else { continue }
            if bytes.isEmpty { throw TestFailure("EOF during the handshake") }
            server.receive(bytes)
            while let event = server.nextEvent() {
                if case .handshakeRequest = event {
                    try server.accept()
                    _ = server.nextEvent()
                    write(server.takeOutput())
                    return server
                }
            }
        }
        throw TestFailure("no handshake request")
    }
}

/// A blocking listening socket on `127.0.0.1`, for raw servers.
final class RawListener: @unchecked Sendable {
    let fd: Int32
    let port: UInt16

    init(backlog: Int32 = 16) throws {
        guard let address = try? SocketAddress.resolve(host: "127.0.0.1", port: 0, passive: true).first,
              case .success(let fd) = Socket.listen(on: address, backlog: backlog),
              let port = Socket.localPort(fd) else { throw TestFailure("listen") }
        // Socket.listen makes it non-blocking; accept() below polls first.
        self.fd = fd
        self.port = port
    }

    /// Accepts one connection within `timeout`, as a blocking socket.
    func accept(timeout: Duration = .seconds(5)) throws -> RawSocket {
        guard waitReadable(fd, timeout: timeout) else { throw TestFailure("no connection to accept") }
        guard case .accepted(let client) = Socket.accept(fd) else { throw TestFailure("accept: errno \(errno)") }
        makeBlocking(client)
        return RawSocket(fd: client)
    }

    private var isClosed = false

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Socket.close(fd)
    }

    deinit { close() }
}

/// Clears `O_NONBLOCK`: raw peers block, with `poll` timeouts.
private func makeBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL, 0)
    _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
}

/// Whether `fd` becomes readable (or reaches end of stream) within `timeout`.
private func waitReadable(_ fd: Int32, timeout: Duration) -> Bool {
    var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let (seconds, attoseconds) = timeout.components
    let millis = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    return poll(&descriptor, 1, millis) > 0
}
