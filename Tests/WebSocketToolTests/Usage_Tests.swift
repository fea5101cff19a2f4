// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport

/// `websocket help`, `--help`, and what a bad command line does: exit status 2 and ONE line first
/// on standard error, `websocket: <message naming the option>`, before any usage text.
@Suite("Usage: help, --help, bad options (exit 2)", .onTestThreads)
struct UsageTests {
    /// The first line of standard error of a run that must be a usage error, checked for the
    /// `websocket: ` prefix and for naming `option`.
    private func expectUsageError(_ arguments: [String], naming option: String,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        let run = try runTool(arguments)
        #expect(run.status == 2, "\(run.transcript)", sourceLocation: sourceLocation)
        let first = run.stderrLines.first ?? ""
        #expect(first.hasPrefix("websocket: "), "first stderr line: \(first)", sourceLocation: sourceLocation)
        #expect(first.contains(option), "the first stderr line should name \(option): \(first)", sourceLocation: sourceLocation)
        #expect(run.stdout.isEmpty, "nothing on stdout for a usage error: \(run.stdout)", sourceLocation: sourceLocation)
    }

    @Test("The built tool is beside the test binary (a missing tool fails every test here, never skips it)")
    func toolIsBuilt() throws {
        let path = try ToolLocation.tool()
        #expect(path.hasSuffix("/websocket"))
    }

    @Test("websocket help: usage on stdout, exit 0")
    func help() throws {
        let run = try runTool(["help"])
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.stdout.contains("usage"))
        #expect(run.stdout.contains("connect"))
        #expect(run.stdout.contains("serve"))
    }

    @Test("websocket help connect / connect --help: the connect usage on stdout, exit 0", arguments: [["help", "connect"], ["connect", "--help"]])
    func helpConnect(arguments: [String]) throws {
        let run = try runTool(arguments)
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.stdout.contains("connect"), "\(run.transcript)")
        #expect(run.stdout.contains("--header"), "\(run.transcript)")
    }

    @Test("websocket help serve / serve --help: the serve usage on stdout, exit 0", arguments: [["help", "serve"], ["serve", "--help"]])
    func helpServe(arguments: [String]) throws {
        let run = try runTool(arguments)
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.stdout.contains("serve"), "\(run.transcript)")
        #expect(run.stdout.contains("--port"), "\(run.transcript)")
    }

    @Test("websocket help nosuch: exit 2")
    func helpUnknownCommand() throws {
        let run = try runTool(["help", "nosuch"])
        #expect(run.status == 2, "\(run.transcript)")
        #expect(run.stderrLines.first?.hasPrefix("websocket: ") == true, "\(run.transcript)")
    }

    @Test("An unknown command: exit 2, named on the first stderr line")
    func unknownCommand() throws {
        try expectUsageError(["frobnicate"], naming: "frobnicate")
    }

    @Test("connect with an unknown option: exit 2, the option named on the first stderr line")
    func connectUnknownOption() throws {
        try expectUsageError(["connect", "ws://127.0.0.1:1/", "--no-such-option"], naming: "--no-such-option")
    }

    @Test("serve with an unknown option: exit 2, the option named on the first stderr line")
    func serveUnknownOption() throws {
        try expectUsageError(["serve", "--port", "0", "--no-such-option"], naming: "--no-such-option")
    }

    @Test("An option without its value: exit 2, the option named")
    func missingValue() throws {
        try expectUsageError(["connect", "ws://127.0.0.1:1/", "--header"], naming: "--header")
    }

    @Test("Bad values: exit 2, the option named", arguments: [
        (["connect", "ws://127.0.0.1:1/", "--linger", "soon"], "--linger"),
        (["connect", "ws://127.0.0.1:1/", "--max-message-size", "huge"], "--max-message-size"),
        (["connect", "ws://127.0.0.1:1/", "--header", "no colon here"], "--header"),
        (["serve", "--port", "seventy"], "--port"),
        (["serve", "--port", "70000"], "--port"),
    ])
    func badValues(arguments: [String], option: String) throws {
        try expectUsageError(arguments, naming: option)
    }

    @Test("connect without a URL, or with two: exit 2")
    func connectArity() throws {
        for arguments in [["connect"], ["connect", "ws://127.0.0.1:1/", "ws://127.0.0.1:2/"]] {
            let run = try runTool(arguments)
            #expect(run.status == 2, "\(run.transcript)")
            #expect(run.stderrLines.first?.hasPrefix("websocket: ") == true, "\(run.transcript)")
        }
    }

    @Test("connect with a URL that is not ws/wss: exit 2", arguments: ["http://127.0.0.1:1/", "not a url", "ws://"])
    func badURL(url: String) throws {
        let run = try runTool(["connect", url])
        #expect(run.status == 2, "\(run.transcript)")
        #expect(run.stderrLines.first?.hasPrefix("websocket: ") == true, "\(run.transcript)")
    }
}
