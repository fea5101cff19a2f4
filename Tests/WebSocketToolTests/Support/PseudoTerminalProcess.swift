// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import CToolTestSupport

/// The `websocket` tool on a pseudo-terminal, as a person at a terminal runs it: its standard
/// input, output and error are the terminal's slave side, which is its controlling terminal (a new
/// session, the slave opened after setsid), so that typing Ctrl-C (0x03) on the master raises
/// SIGINT in the tool through the line discipline, and Ctrl-D (0x04) at the start of a line is end
/// of input. Echo is turned off, so that what is read from the master is only what the tool wrote.
final class PseudoTerminalProcess {
    let arguments: [String]
    /// Everything the tool wrote to the terminal (stdout and stderr together, "\n" as "\r\n").
    let output: StreamCollector
    private let master: Int32
    private let exit: ExitWatcher

    /// Ctrl-C: the terminal's interrupt character (VINTR).
    static let interrupt: UInt8 = 0x03
    /// Ctrl-D: the terminal's end-of-file character (VEOF).
    static let endOfFile: UInt8 = 0x04

    init(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let tool = try ToolLocation.tool(sourceLocation: sourceLocation)
        self.arguments = arguments
        var name = [CChar](repeating: 0, count: 256)
        let master = ctooltest_open_pseudo_terminal(&name, UInt(name.count))
        guard master >= 0 else { throw ToolTestError("posix_openpt: \(String(cString: strerror(errno)))") }
        let slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // The parent holds the slave open across the spawn: turning echo off on it, and keeping the
        // terminal's settings while the child opens it by name.
        let slave = open(slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else {
            close(master)
            throw ToolTestError("open \(slavePath): \(String(cString: strerror(errno)))")
        }
        defer { close(slave) }
        var settings = termios()
        tcgetattr(slave, &settings)
        settings.c_lflag &= ~tcflag_t(ECHO | ECHONL)
        tcsetattr(slave, TCSANOW, &settings)

        let pid: pid_t
        do {
            // POSIX_SPAWN_SETSID: a new session with no controlling terminal; glibc runs setsid
            // before the file actions, so the slave opened as fd 0 (without O_NOCTTY) becomes it.
            pid = try Spawn.spawn(tool, arguments, environment: Spawn.environment(["TERM": "dumb"]),
                                  flags: ctooltest_spawn_setsid_flag()) { actions in
                posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
                posix_spawn_file_actions_adddup2(&actions, 0, 1)
                posix_spawn_file_actions_adddup2(&actions, 0, 2)
            }
        } catch {
            close(master)
            throw error
        }
        self.master = master
        exit = try ExitWatcher(pid: pid)
        // The reader owns a duplicate: it closes it at EIO (every slave closed), while writes go on
        // through `master`, closed in deinit.
        output = try StreamCollector(reading: dup(master))
    }

    deinit {
        exit.send(SIGKILL)
        close(master)
    }

    /// Types `bytes` on the terminal.
    @discardableResult
    func type(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { systemWrite(master, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return false }
            offset += count
        }
        return true
    }

    /// Types `text` (a line ends with "\n", which the terminal passes on as is).
    @discardableResult
    func type(_ text: String) -> Bool { type(Array(text.utf8)) }

    /// Waits until the terminal shows `text`; whether it did before `timeout`.
    func waitForOutput(containing text: String, timeout: Duration = generousTimeout) -> Bool {
        output.wait(timeout: timeout) { $0.contains(text) }
    }

    /// Waits for the exit; the status, or `nil` when the tool still runs after `timeout`.
    func waitForExit(timeout: Duration = generousTimeout) -> Int32? {
        exit.wait(timeout: timeout)
    }

    /// What the terminal showed, for failure messages.
    var transcript: String { "websocket \(arguments.joined(separator: " ")) (on a terminal)\n\(excerpt(output.text, lines: 30))" }
}
