// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import TransportTestSupport
import WebSocketRedis
import WebSocketTransport

/// A `redis-server` of the test's own, on a Unix socket in a fresh directory (no port to collide with
/// another test or process), optionally with a password, started and stopped by the test: Redis
/// restarted in the middle is ``restart()``.
///
/// The binary is `$WEBSOCKET_REDIS_SERVER`, else `redis-server` in `PATH`. CI (`.ci/run`) installs it
/// and sets `WEBSOCKET_REDIS_REQUIRED=1`: the tests then fail when it is missing rather than being
/// skipped; without that variable, a machine without Redis skips them.
final class RedisTestServer {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The `redis-server` to run, or `nil`.
    static let binary: String? = {
        if let path = getenv("WEBSOCKET_REDIS_SERVER").map({ String(cString: $0) }), !path.isEmpty { return path }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/redis-server"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }()

    /// Whether the tests must run (CI).
    static let required = getenv("WEBSOCKET_REDIS_REQUIRED").map { String(cString: $0) == "1" } ?? false

    /// Whether the Redis tests run: a binary is there, or CI requires them (and then fails without one).
    static let enabled = binary != nil || required

    let directory: String
    let password: String?
    /// The plain TCP port on 127.0.0.1 (and ::1), or `nil` for none.
    private(set) var tcpPort: UInt16?
    /// The TLS port, with the test PKI's `localhost` certificate, or `nil` for none.
    private(set) var tlsPort: UInt16?
    private(set) var pid: pid_t = 0

    var socketPath: String { directory + "/redis.sock" }

    /// The endpoint, with the server's password (or `password` instead, to try a wrong one).
    func endpoint(password: String? = nil) -> RedisEndpoint {
        let secret = password ?? self.password
        return RedisEndpoint(address: .unix(path: socketPath), credentials: secret.map { RedisCredentials(password: $0) })
    }

    /// A port nobody listens on now (the kernel's pick for a socket bound and closed at once). Redis
    /// takes it a moment later: another process may take it first (a test's client, whose ephemeral
    /// port the kernel draws from the same range), and then `init` starts again on new ports.
    static func freePort() throws -> UInt16 {
        guard case .success(let addresses) = AddressResolution.resolve(host: "127.0.0.1", port: 0, passive: true) else {
            throw Failure(description: "no address for 127.0.0.1")
        }
        let socket = try Socket.listening(on: addresses[0], backlog: 1, system: .live)
        defer { socket.close() }
        guard let port = socket.localAddress?.port else { throw Failure(description: "getsockname failed") }
        return port
    }

    /// A server on a Unix socket; with `tcp`, on a TCP port too; with `tls`, on a TLS port too, with
    /// the certificate and key given (PEM), which it writes to its directory.
    init(password: String? = nil, tcp: Bool = false, tls: (certificate: [UInt8], key: [UInt8])? = nil) throws {
        guard Self.binary != nil else {
            throw Failure(description: "redis-server not found (PATH, or WEBSOCKET_REDIS_SERVER), and WEBSOCKET_REDIS_REQUIRED=1: "
                          + "install it (Debian: apt-get install redis-server)")
        }
        var template = Array("/tmp/websocket-redis-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw Failure(description: "mkdtemp: \(String(cString: strerror(errno)))")
        }
        directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.password = password
        if let tls {
            try Self.save(tls.certificate, to: directory + "/server.pem")
            try Self.save(tls.key, to: directory + "/server.key")
        }
        // A port taken between its pick and Redis's bind (seen once in a run of the whole suite beside
        // two busy loops) is no failure of the code under test: new ports, a few times at most.
        var attempt = 0
        while true {
            tcpPort = tcp ? try Self.freePort() : nil
            tlsPort = tls != nil ? try Self.freePort() : nil
            do {
                try start()
                return
            } catch let failure as Failure where failure.description.contains("Address already in use") && attempt < 4 {
                attempt += 1
            }
        }
    }

    deinit {
        stop()
        for name in ["redis.sock", "server.pem", "server.key"] { unlink(directory + "/" + name) }
        rmdir(directory)
    }

    private static func save(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw Failure(description: "open \(path) failed") }
        defer { close(descriptor) }
        guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
            throw Failure(description: "write \(path) failed")
        }
    }

    /// Starts the server and returns once it accepts connections (its log says so).
    func start() throws {
        guard pid == 0, let binary = Self.binary else { return }
        var arguments = ["--port", String(tcpPort ?? 0), "--unixsocket", socketPath, "--unixsocketperm", "700", "--dir", directory,
                         "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", "", "--loglevel", "notice"]
        if let password { arguments += ["--requirepass", password] }
        if let tlsPort {
            arguments += ["--tls-port", String(tlsPort), "--tls-cert-file", directory + "/server.pem",
                          "--tls-key-file", directory + "/server.key", "--tls-auth-clients", "no"]
        }
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw Failure(description: "pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(descriptors[0], F_SETFD, FD_CLOEXEC)
        let child: pid_t
        do throws(SpawnFailure) {
            child = try spawnChild(binary, arguments, environment: currentEnvironment) { actions in
                posix_spawn_file_actions_adddup2(&actions, descriptors[1], 1)
                posix_spawn_file_actions_adddup2(&actions, descriptors[1], 2)
            }
        } catch {
            close(descriptors[1])
            close(descriptors[0])
            throw Failure(description: error.description)
        }
        close(descriptors[1])
        pid = child
        let log = Log(descriptor: descriptors[0])
        // "Ready to accept connections tcp", or "… now ready to accept connections at PATH" (Unix only).
        guard log.waitFor("eady to accept connections", timeout: .seconds(30)) else {
            stop()
            throw Failure(description: "redis-server did not start: \(log.text)")
        }
    }

    /// Stops the server (SIGTERM, as a restart would) and waits for it to exit.
    func stop() {
        guard pid != 0 else { return }
        kill(pid, SIGTERM)
        // The log reader holds nothing the exit needs; the wait is the exit itself.
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        pid = 0
    }

    /// Redis restarted: stopped, then started on the same socket, with nothing of the old one.
    func restart() throws {
        stop()
        try start()
    }

    /// The server's output, read on a thread of its own to the end (so that the server never
    /// blocks on a full pipe), with waits for a line.
    final class Log: Sendable {
        private let state = Locked((text: "", ended: false))

        init(descriptor: Int32) {
            try? spawnDetachedThread { [state] in
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    state.withLock { $0.text += String(decoding: buffer[..<count], as: UTF8.self) }
                    state.broadcast()
                }
                close(descriptor)
                state.withLock { $0.ended = true }
                state.broadcast()
            }
        }

        var text: String { state.withLock { $0.text } }

        func waitFor(_ line: String, timeout: Duration) -> Bool {
            _ = state.wait(until: { $0.text.contains(line) || $0.ended }, deadline: now() + timeout, now: now)
            return text.contains(line)
        }
    }
}
