// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import WebSocketPOSIX

/// `websocket serve --port 0 …` running as a child process, with the port it chose read from its
/// "listening on ws://127.0.0.1:PORT/" line, for the library's ``BlockingWebSocket`` client to
/// connect to.
final class ServeProcess {
    let tool: ToolProcess
    let port: UInt16
    /// `ws`, or `wss` for a server given a certificate.
    let scheme: String

    /// Starts `websocket serve --port 0 ARGUMENTS…` and waits for its listening line. The line is
    /// on standard error (the spec); standard output is accepted as well, where older builds put it.
    /// With `secure`, the line to wait for is "listening on wss://…".
    init(_ arguments: [String], secure: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
        tool = try ToolProcess(["serve", "--port", "0"] + arguments, sourceLocation: sourceLocation)
        scheme = secure ? "wss" : "ws"
        let marker = "listening on \(scheme)://127.0.0.1:"
        let found = tool.waitForOutputOrStderr { $0.contains(marker) || $1.contains(marker) }
        guard found, let port = Self.port(after: marker, in: tool.stderr.text + "\n" + tool.stdout.text) else {
            Issue.record("no listening line: \(tool.transcript)", sourceLocation: sourceLocation)
            throw ToolTestError("serve did not report its port")
        }
        self.port = port
    }

    private static func port(after marker: String, in text: String) -> UInt16? {
        guard let range = text.firstRange(of: marker) else { return nil }
        return UInt16(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// The messages printed on stdout: its lines, less a listening line (asserted to be on stderr
    /// by its own test, ``ServeTests/listeningLine()``).
    var messageLines: [String] { tool.stdout.lines.filter { !$0.hasPrefix("listening on ") } }

    func url(_ resource: String = "/") -> String { "\(scheme)://127.0.0.1:\(port)\(resource)" }

    /// A library client connected to the tool, with every wait bounded generously.
    func connect(_ resource: String = "/", subprotocols: [String] = [], headers: Connection.HTTPHeaders = [:]) throws -> BlockingWebSocket {
        try BlockingWebSocket.connect(to: url(resource), subprotocols: subprotocols, headers: headers,
                                      options: clientOptions())
    }
}

/// Client socket options for tests: every wait bounded by the generous timeout.
func clientOptions() -> TransportOptions {
    var options = TransportOptions()
    options.connectTimeout = generousTimeout
    options.receiveTimeout = generousTimeout
    options.writeTimeout = generousTimeout
    return options
}

/// The response that refused a connect; `nil` (and a recorded issue) when it connected or failed
/// otherwise.
func rejection(_ body: () throws -> BlockingWebSocket, sourceLocation: SourceLocation = #_sourceLocation) -> Connection.HTTPResponse? {
    do {
        let socket = try body()
        Issue.record("connected (subprotocol \(socket.subprotocol ?? "none")), expected a refusal", sourceLocation: sourceLocation)
        return nil
    } catch let error as WebSocketError {
        if case .handshakeFailed(let failure) = error, let response = failure.rejected { return response }
        Issue.record("expected a refused handshake, got \(error)", sourceLocation: sourceLocation)
        return nil
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
