// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing

/// The whole run of a short-lived tool: what it printed and how it exited.
struct ToolRun {
    var status: Int32?
    var stdout: String
    var stderr: String
    var transcript: String

    /// The lines of standard output, without their newlines.
    var stdoutLines: [String] { lines(stdout) }
    /// The lines of standard error, without their newlines.
    var stderrLines: [String] { lines(stderr) }

    private func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

/// Runs `websocket ARGUMENTS…` with `input` on its standard input (then closed), and waits for it
/// to exit (a `nil` status when it did not within the generous bound; it is killed then).
func runTool(_ arguments: [String], input: String = "", environment: [String: String?] = [:],
             sourceLocation: SourceLocation = #_sourceLocation) throws -> ToolRun {
    try runTool(arguments, inputBytes: Array(input.utf8), environment: environment, sourceLocation: sourceLocation)
}

/// ``runTool(_:input:environment:sourceLocation:)`` with raw bytes on standard input.
func runTool(_ arguments: [String], inputBytes: [UInt8], environment: [String: String?] = [:],
             sourceLocation: SourceLocation = #_sourceLocation) throws -> ToolRun {
    let tool = try ToolProcess(arguments, environment: environment, sourceLocation: sourceLocation)
    tool.write(inputBytes)
    tool.closeStdin()
    let status = tool.waitForExit()
    return ToolRun(status: status, stdout: tool.stdout.text, stderr: tool.stderr.text, transcript: tool.transcript)
}
