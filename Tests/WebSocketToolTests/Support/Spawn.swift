// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketTransport
import CToolTestSupport
import TransportTestSupport

/// posix_spawn of the tool, shared by ``ToolProcess`` (pipes) and ``PseudoTerminalProcess`` (a
/// terminal): argument and environment arrays, a clean signal state, and a thread that reaps the
/// child so that exits can be waited for on a condition rather than polled.
enum Spawn {
    /// Ignores SIGPIPE in the test process, once: writing to the stdin of a tool that already exited
    /// must fail with EPIPE, not kill the test runner.
    static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// The environment of the test process with `overrides` applied (a `nil` value removes a name).
    static func environment(_ overrides: [String: String?]) -> [String] {
        var result: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if overrides[name] == nil { result.append(text) }
            index += 1
        }
        for (name, value) in overrides { if let value = value { result.append("\(name)=\(value)") } }
        return result
    }

    /// Spawns `path` with `arguments` (argv[0] is the path) and `environment`; `configure` adds file
    /// actions and attribute flags. The child gets default dispositions for the signals the tests
    /// use (the test process ignores SIGPIPE, which exec would otherwise pass on) and an empty mask.
    static func spawn(_ path: String, _ arguments: [String], environment: [String],
                      flags: Int32, fileActions configure: (inout posix_spawn_file_actions_t) -> Void) throws -> pid_t {
        _ = ignoreBrokenPipes
        do throws(SpawnFailure) {
            return try spawnChild(path, arguments, environment: environment, flags: flags, fileActions: configure)
        } catch {
            throw ToolTestError(error.description)
        }
    }

    /// Creates a pipe whose both ends close on exec (so that no other child spawned meanwhile
    /// inherits them and keeps them open); the child's ends are dup2-ed into place.
    static func pipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [-1, -1]
        guard ctooltest_pipe_cloexec(&descriptors) == 0 else { throw ToolTestError("pipe2: \(String(cString: strerror(errno)))") }
        return (descriptors[0], descriptors[1])
    }
}

/// A child's exit, reaped by a thread blocked in waitpid, for waits with a deadline.
final class ExitWatcher: Sendable {
    private let status = Locked<Int32?>(nil)
    let pid: pid_t

    init(pid: pid_t) throws {
        self.pid = pid
        let status = self.status
        try spawnDetachedThread {
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            // WIFEXITED/WEXITSTATUS are macros Swift does not import: the low 7 bits are the
            // terminating signal (0 for an exit), the next 8 the exit status. A signal death is
            // reported as a shell does, 128 + the signal.
            let signalNumber = raw & 0x7F
            status.withLock { $0 = signalNumber == 0 ? (raw >> 8) & 0xFF : 128 + signalNumber }
            status.broadcast()
        }
    }

    /// The exit status (128 + N for death by signal N), once the child has exited.
    var exitStatus: Int32? { status.withLock { $0 } }

    /// Waits for the exit; the status, or `nil` when `timeout` passed first.
    func wait(timeout: Duration) -> Int32? {
        guard status.wait(until: { $0 != nil }, deadline: elapsedClock() + timeout, now: elapsedClock) else { return nil }
        return exitStatus
    }

    /// Sends `number` to the child while it has not been reaped (never to a reused pid); with
    /// `group`, to its whole process group (the shells of `serve --exec` too).
    func send(_ number: Int32, group: Bool = false) {
        status.withLock { exited in
            if exited == nil { _ = kill(group ? -pid : pid, number) }
        }
    }
}
