// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import WebSocketCore
import WebSocketAsync
import WebSocketTransport

/// `serve --exec CMD`: one `/bin/sh -c CMD` per connection. The client's messages, each followed by
/// a newline, go to the command's standard input; each line of its standard output goes back as a
/// message; when its output ends, the connection closes with 1000. When the connection ends first,
/// the command gets SIGTERM and its input is closed. The command sees the connection in its
/// environment: `WEBSOCKET_PEER` (address:port), `WEBSOCKET_RESOURCE` (`/chat?x=1`),
/// `WEBSOCKET_SUBPROTOCOL` (empty for none).
///
/// `@unchecked Sendable`: the descriptors are constants; writes are serialized on `writes`.
final class CommandBridge: @unchecked Sendable {
    let pid: pid_t
    private let input: Int32
    /// Writes to the command's input block while it does not read: they wait here, off the loop.
    private let writes = DispatchQueue(label: "websocket.exec.input")
    /// Bytes handed to ``deliver(_:)`` and not yet written to the command.
    private let pending = Locked(0)
    /// Whether the command has been waited for: its pid may be another process's after that.
    private let reaped = Locked(false)

    /// Starts `command` for `socket`, with `environment` added to the tool's. `binary`: its output
    /// lines are sent as binary messages.
    init(command: String, socket: WebSocket, binary: Bool, peer: String,
         environment: [(name: String, value: String)]) throws(CommandError) {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard Self.makePipe(&toChild) else { throw CommandError(reason: "pipe: \(String(cString: strerror(errno)))") }
        guard Self.makePipe(&fromChild) else {
            close(toChild[0]); close(toChild[1])
            throw CommandError(reason: "pipe: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        // The tool blocks SIGINT and SIGTERM and ignores SIGPIPE; the command gets neither.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var child: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(command), nil]
        defer { for pointer in argv { free(pointer) } }
        // The tool's environment, without the names set here, then those.
        let names = Set(environment.map(\.name))
        var variables: [UnsafeMutablePointer<CChar>?] = []
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if !names.contains(String(text.prefix { $0 != "=" })) { variables.append(strdup(pointer)) }
            entry += 1
        }
        for (name, value) in environment { variables.append(strdup("\(name)=\(value)")) }
        variables.append(nil)
        defer { for pointer in variables { free(pointer) } }
        let result = posix_spawn(&child, "/bin/sh", &actions, &attributes, argv, variables)
        close(toChild[0])
        close(fromChild[1])
        guard result == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw CommandError(reason: "/bin/sh: \(String(cString: strerror(result)))")
        }
        let spawned = child
        pid = child
        input = toChild[1]
        let output = fromChild[0]
        let reaped = reaped
        startThread { @Sendable in
            var lines = LineReader(descriptor: output)
            while let line = lines.next() {
                if binary {
                    try? socket.send(binary: line)
                } else {
                    try? socket.send(text: String(decoding: line, as: UTF8.self))
                }
            }
            close(output)
            var status: Int32 = 0
            // Wait for the exit without reaping (the pid stays this command's while a kill may
            // still be sent), then reap under the lock.
            var info = siginfo_t()
            while waitid(P_PID, id_t(spawned), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            reaped.withLock { done in
                while waitpid(spawned, &status, 0) < 0 && errno == EINTR {}
                done = true
            }
            printError("\(peer): command exited with status \(Self.describe(status))")
            try? socket.sendClose(code: .normalClosure)
        }
    }

    /// Hands a message to the command, with a newline after it.
    /// Returns `false`, taking nothing, when the command already has ``maxPendingBytes`` waiting: a
    /// client must not fill the server's memory faster than its command reads.
    func deliver(_ bytes: [UInt8]) -> Bool {
        let input = input
        let size = bytes.count + 1
        let pending = pending
        let admitted = pending.withLock { waiting -> Bool in
            guard waiting <= Self.maxPendingBytes - size else { return false }
            waiting += size
            return true
        }
        guard admitted else { return false }
        writes.async {
            defer { pending.withLock { $0 -= size } }
            // A command that stopped reading (EPIPE) gets nothing more: its output decides the end.
            guard writeAll(bytes, to: input) else { return }
            writeAll([UInt8(ascii: "\n")], to: input)
        }
        return true
    }

    /// The most bytes of messages waiting for the command to read them (beyond the pipe's own buffer).
    static let maxPendingBytes = 4 << 20

    /// The connection ended: the command's input ends, and it is asked to stop.
    func connectionEnded() {
        // The signal first, from here: a write waiting on `writes` for a command that does not read
        // would hold anything queued behind it; once the command is gone that write fails (EPIPE).
        reaped.withLock { done in if !done { kill(pid, SIGTERM) } }
        let input = input
        writes.async { close(input) }
    }

    /// A pipe whose ends are closed in every other process the tool starts (glibc's `pipe2` is not
    /// imported into Swift).
    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// `0`, `1`, `signal 15`.
    private static func describe(_ status: Int32) -> String {
        let signal = status & 0x7F
        return signal == 0 ? "\((status >> 8) & 0xFF)" : "signal \(signal)"
    }
}

/// A command that could not start.
struct CommandError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
