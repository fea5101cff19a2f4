// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport
import WebSocketTransport

/// `websocket connect` with standard input piped: each line a message, the peer's answers printed,
/// a clean close (1000, exit 0) once input has ended and the answers have stopped coming.
@Suite("connect: standard input piped", .onTestThreads)
struct ConnectStdinTests {
    @Test("printf 'a\\nb\\n' | websocket connect: both echoes on stdout, the server sees 1000, exit 0 (10 runs, every one must pass)")
    func linesEchoed() throws {
        let server = try RecordingServer()
        for attempt in 1...10 {
            let run = try runTool(["connect", server.url("/run\(attempt)")], input: "a\nb\n")
            #expect(run.status == 0, "run \(attempt): \(run.transcript)")
            #expect(run.stdoutLines == ["a", "b"], "run \(attempt): \(run.transcript)")
            #expect(run.stderr.contains("connected to"), "run \(attempt): \(run.transcript)")
        }
        #expect(server.wait { $0.closeStatuses.count == 10 }, "every run closed: \(server.seen.closeStatuses)")
        #expect(server.seen.closeCodes == Array(repeating: 1000, count: 10))
        #expect(server.seen.texts == Array(repeating: ["a", "b"], count: 10).flatMap { $0 })
    }

    @Test("20,000 lines of varying length (over 300 KiB, lines across every 64 KiB read): each sent once, in order, none cut")
    func manyLines() throws {
        let server = try RecordingServer()
        let lines = (0..<20_000).map { index in "\(index):" + String(repeating: "x", count: index % 23) }
        let run = try runTool(["connect", server.url(), "--max-messages", "20000", "--linger", "60"],
                              input: lines.joined(separator: "\n") + "\n")
        #expect(run.status == 0, "\(run.transcript.prefix(2000))")
        #expect(server.seen.texts == lines, "\(server.seen.texts.count) texts received")
        #expect(run.stdoutLines == lines, "\(run.stdoutLines.count) lines printed")
    }

    @Test("Empty standard input: a clean close with 1000, exit 0, nothing on stdout")
    func emptyInput() throws {
        let server = try RecordingServer()
        let run = try runTool(["connect", server.url()], input: "")
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.stdout.isEmpty, "\(run.transcript)")
        #expect(server.wait { $0.closeCodes == [1000] }, "\(server.seen.closeStatuses)")
        #expect(server.seen.messages.isEmpty)
    }

    @Test("Lines as sent: spaces, an empty line, UTF-8; a last line without a newline is sent too")
    func lineContents() throws {
        let server = try RecordingServer()
        let run = try runTool(["connect", server.url()], input: "  two spaces  \n\nhéllo wörld ✓\nno newline")
        #expect(run.status == 0, "\(run.transcript)")
        #expect(server.seen.texts == ["  two spaces  ", "", "héllo wörld ✓", "no newline"])
        #expect(run.stdoutLines == ["  two spaces  ", "", "héllo wörld ✓", "no newline"], "\(run.transcript)")
    }

    @Test("-b / --binary: each line sent as a binary message, echoes printed as 'binary: <hex>'", arguments: ["-b", "--binary"])
    func binaryLines(flag: String) throws {
        let server = try RecordingServer()
        let run = try runTool(["connect", server.url(), flag], input: "a\nbc\n")
        #expect(run.status == 0, "\(run.transcript)")
        #expect(server.seen.binaries == [[0x61], [0x62, 0x63]], "\(server.seen.messages)")
        #expect(server.seen.texts.isEmpty)
        #expect(run.stdoutLines == ["binary: 61", "binary: 6263"], "\(run.transcript)")
    }

    @Test("-b: bytes that are not UTF-8 go out as they are")
    func binaryBytes() throws {
        let server = try RecordingServer()
        let run = try runTool(["connect", server.url(), "--binary"], inputBytes: [0xFF, 0x00, 0xFE, 0x0A])
        #expect(run.status == 0, "\(run.transcript)")
        #expect(server.seen.binaries == [[0xFF, 0x00, 0xFE]], "\(server.seen.messages)")
        #expect(run.stdoutLines == ["binary: ff00fe"], "\(run.transcript)")
    }

    @Test("--no-line-split: the whole of standard input is one text message, sent at the end of input")
    func wholeInputText() throws {
        let server = try RecordingServer()
        let run = try runTool(["connect", server.url(), "--no-line-split"], input: "one\ntwo\n\nthree")
        #expect(run.status == 0, "\(run.transcript)")
        #expect(server.seen.texts == ["one\ntwo\n\nthree"], "\(server.seen.messages)")
    }

    @Test("--no-line-split -b: the whole of standard input is one binary message")
    func wholeInputBinary() throws {
        let server = try RecordingServer()
        let input: [UInt8] = [0x00, 0x0A, 0xFF, 0x0A, 0x41]
        let run = try runTool(["connect", server.url(), "--no-line-split", "-b"], inputBytes: input)
        #expect(run.status == 0, "\(run.transcript)")
        #expect(server.seen.binaries == [input], "\(server.seen.messages)")
        #expect(run.stdoutLines == ["binary: 000aff0a41"], "\(run.transcript)")
    }

    @Test("Text mode: a line that is not valid UTF-8 is an error naming UTF-8, exit 2, and nothing replaced by U+FFFD is sent")
    func invalidUTF8() throws {
        let server = try RecordingServer()
        let run = try runTool(["connect", server.url()], inputBytes: Array("fine\n".utf8) + [0x62, 0xFF, 0x61, 0x64, 0x0A] + Array("after\n".utf8))
        #expect(run.status == 2, "\(run.transcript)")
        #expect(run.stderr.contains("UTF-8"), "\(run.transcript)")
        #expect(!server.seen.texts.contains { $0.contains("\u{FFFD}") }, "a repaired line was sent: \(server.seen.texts)")
        #expect(!server.seen.texts.contains("after"), "input after the bad line was sent: \(server.seen.texts)")
    }
}
