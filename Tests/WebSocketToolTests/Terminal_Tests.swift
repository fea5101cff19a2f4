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

/// `websocket connect` driven as a person at a terminal drives it: typed lines, then Ctrl-D (end of
/// input at the start of a line) or Ctrl-C (SIGINT from the terminal's line discipline).
@Suite("connect on a pseudo-terminal: typing, Ctrl-D, Ctrl-C", .onTestThreads)
struct TerminalTests {
    @Test("Two typed lines, each echoed by the server and printed; Ctrl-D: a clean close with 1000, exit 0")
    func typeThenEndOfInput() throws {
        let server = try RecordingServer()
        let terminal = try PseudoTerminalProcess(["connect", server.url()])
        try #require(terminal.waitForOutput(containing: "connected to"), "\(terminal.transcript)")
        terminal.type("first typed line\n")
        #expect(terminal.waitForOutput(containing: "first typed line"), "\(terminal.transcript)")
        terminal.type("second one\n")
        #expect(terminal.waitForOutput(containing: "second one"), "\(terminal.transcript)")
        terminal.type([PseudoTerminalProcess.endOfFile])
        #expect(terminal.waitForExit() == 0, "\(terminal.transcript)")
        #expect(server.wait { $0.closeCodes == [1000] }, "\(server.seen.closeStatuses)")
        #expect(server.seen.texts == ["first typed line", "second one"])
    }

    @Test("The terminal does not echo what is typed: a line the server does not answer is sent, never shown")
    func noEcho() throws {
        let server = try RecordingServer(echoes: false)
        let terminal = try PseudoTerminalProcess(["connect", server.url()])
        try #require(terminal.waitForOutput(containing: "connected to"), "\(terminal.transcript)")
        terminal.type("typed but not answered\n")
        #expect(server.wait { $0.texts == ["typed but not answered"] }, "\(terminal.transcript)")
        terminal.type([PseudoTerminalProcess.endOfFile])
        #expect(terminal.waitForExit() == 0, "\(terminal.transcript)")
        #expect(!terminal.output.text.contains("typed but not answered"), "\(terminal.transcript)")
    }

    @Test("A typed line, then Ctrl-C: the tool sends 1001 (the server sees it) and exits 1")
    func typeThenInterrupt() throws {
        let server = try RecordingServer()
        let terminal = try PseudoTerminalProcess(["connect", server.url()])
        try #require(terminal.waitForOutput(containing: "connected to"), "\(terminal.transcript)")
        terminal.type("before the interrupt\n")
        #expect(terminal.waitForOutput(containing: "before the interrupt"), "\(terminal.transcript)")
        terminal.type([PseudoTerminalProcess.interrupt])
        #expect(terminal.waitForExit() == 1, "\(terminal.transcript)")
        #expect(server.wait { !$0.closeStatuses.isEmpty }, "\(terminal.transcript)")
        #expect(server.seen.closeCodes == [1001], "\(server.seen.closeStatuses)")
    }
}
