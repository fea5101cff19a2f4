// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WebSocketTransport

/// The `websocket` tool running as a child process with its standard input, output and error on
/// pipes: tests write to its stdin, wait for text on its stdout or stderr, signal it, and wait for
/// its exit status. Every wait is on a condition with a generous failure bound, never a sleep.
/// The child is killed (with its process group) when this object goes away, so a failing test
/// leaves no tool running.
final class ToolProcess {
    let arguments: [String]
    let stdout: StreamCollector
    let stderr: StreamCollector
    private let exit: ExitWatcher
    private var stdinDescriptor: Int32
    /// Bumped by both streams' readers, for waits on both.
    private let activity = Locked(0)

    var pid: pid_t { exit.pid }

    /// Starts `websocket ARGUMENTS…`; `environment` overrides names of the test process's
    /// environment (`nil` removes one).
    init(_ arguments: [String], environment: [String: String?] = [:],
         sourceLocation: SourceLocation = #_sourceLocation) throws {
        let tool = try ToolLocation.tool(sourceLocation: sourceLocation)
        self.arguments = arguments
        let input = try Spawn.pipe()
        let output = try Spawn.pipe()
        let errors = try Spawn.pipe()
        let pid: pid_t
        do {
            // Its own process group, so that the shells of `serve --exec` die with it.
            pid = try Spawn.spawn(tool, arguments, environment: Spawn.environment(environment),
                                  flags: Int32(POSIX_SPAWN_SETPGROUP)) { actions in
                posix_spawn_file_actions_adddup2(&actions, input.read, 0)
                posix_spawn_file_actions_adddup2(&actions, output.write, 1)
                posix_spawn_file_actions_adddup2(&actions, errors.write, 2)
            }
        } catch {
            for descriptor in [input.read, input.write, output.read, output.write, errors.read, errors.write] { close(descriptor) }
            throw error
        }
        close(input.read)
        close(output.write)
        close(errors.write)
        stdinDescriptor = input.write
        exit = try ExitWatcher(pid: pid)
        stdout = try StreamCollector(reading: output.read, activity: activity)
        stderr = try StreamCollector(reading: errors.read, activity: activity)
    }

    deinit {
        exit.send(SIGKILL, group: true)
        if stdinDescriptor >= 0 { close(stdinDescriptor) }
    }

    // MARK: Standard input

    /// Writes `bytes` to the tool's standard input; whether all of them were written (false once the
    /// tool stopped reading and exited, EPIPE).
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count, stdinDescriptor >= 0 {
            let count = bytes.withUnsafeBytes { systemWrite(stdinDescriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return false }
            offset += count
        }
        return offset == bytes.count
    }

    /// Writes `text` as UTF-8.
    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Closes the tool's standard input: end of input.
    func closeStdin() {
        if stdinDescriptor >= 0 { close(stdinDescriptor) }
        stdinDescriptor = -1
    }

    // MARK: Waiting

    /// Waits until stdout contains `text`; whether it did before `timeout` (or the tool's exit).
    func waitForOutput(containing text: String, timeout: Duration = generousTimeout) -> Bool {
        stdout.wait(timeout: timeout) { $0.contains(text) }
    }

    /// Waits until stderr contains `text`; whether it did before `timeout` (or the tool's exit).
    func waitForStderr(containing text: String, timeout: Duration = generousTimeout) -> Bool {
        stderr.wait(timeout: timeout) { $0.contains(text) }
    }

    /// Waits until `condition` holds for (stdout, stderr) so far, or both streams end without it
    /// holding, or `timeout` passes; whether it held.
    func waitForOutputOrStderr(timeout: Duration = generousTimeout, until condition: (_ stdout: String, _ stderr: String) -> Bool) -> Bool {
        var held = false
        _ = activity.wait(until: { _ in
            held = condition(stdout.text, stderr.text)
            return held || (stdout.hasEnded && stderr.hasEnded)
        }, deadline: elapsedClock() + timeout, now: elapsedClock)
        return held
    }

    /// Waits for the tool to exit, and for its output to be read to the end; the exit status (128 +
    /// N after signal N), or `nil` when it is still running after `timeout`.
    func waitForExit(timeout: Duration = generousTimeout) -> Int32? {
        guard let status = exit.wait(timeout: timeout) else { return nil }
        // The pipes end when the last writer closes them: the tool and any child it left behind.
        _ = stdout.waitForEnd(timeout: .seconds(10))
        _ = stderr.waitForEnd(timeout: .seconds(10))
        return status
    }

    /// The exit status, if the tool has exited.
    var exitStatus: Int32? { exit.exitStatus }

    /// Sends a signal to the tool (not its process group).
    func signal(_ number: Int32) { exit.send(number) }

    /// What the tool printed, for failure messages.
    var transcript: String {
        "websocket \(arguments.joined(separator: " "))\n--- stdout ---\n\(excerpt(stdout.text))\n--- stderr ---\n\(excerpt(stderr.text))"
    }
}

/// write(2), under a name the methods called `write` do not hide.
func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
