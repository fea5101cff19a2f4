// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore
import WebSocketTransport

/// Everything `websocket connect` was asked to do, checked: the request, the connection's and the
/// transport's settings, how standard input becomes messages and how messages are printed.
struct ConnectSettings: Sendable {
    static let flags: Set<String> = SharedOptions.flags.union(TLSOptions.clientFlags).union([
        "--echo", "--one-message", "--no-proxy", "--binary", "--no-line-split", "--no-close", "--jsonl", "--raw-output",
    ])
    static let options: Set<String> = SharedOptions.options.union(TLSOptions.clientOptions).union([
        "--header", "--origin", "--basic-auth", "--linger", "--max-messages", "--proxy", "--max-redirects",
        "--connect-timeout", "--reconnect", "--reconnect-delay",
    ])

    var url: String
    var endpoint: WebSocketEndpoint
    var request: Connection.ClientOptions
    var configuration: Connection.Configuration
    var options: TransportOptions
    /// Send back every message received, instead of reading standard input.
    var echo: Bool
    /// Standard input's messages are binary.
    var binary: Bool
    /// All of standard input is one message.
    var wholeInput: Bool
    /// Keep the connection open after the end of input, until the peer closes it.
    var keepOpen: Bool
    /// After the end of input, how long without a message before closing.
    var linger: Duration
    /// Close after this many messages received.
    var messageLimit: Int?
    var reconnect: ReconnectPolicy
    var output: MessageOutput

    init(parsing arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(arguments, flags: Self.flags, options: Self.options)
        guard parsed.positional.count == 1, let url = parsed.positional.first else {
            throw UsageError(message: parsed.positional.isEmpty
                             ? "connect needs a URL"
                             : "connect takes one URL, got \(parsed.positional.map { String(reflecting: $0) }.joined(separator: " "))")
        }
        self.url = url
        do throws(WebSocketError) {
            endpoint = try WebSocketEndpoint(parsing: url)
        } catch {
            throw UsageError(message: "\(error)")
        }
        request = Connection.ClientOptions(url: endpoint.url, origin: parsed.value("--origin"),
                                           subprotocols: try SharedOptions.subprotocols(parsed),
                                           headers: try Self.headers(parsed))
        if let credentials = parsed.value("--basic-auth") {
            // RFC 7617 §2: the user id cannot hold a colon, so the first one ends it.
            guard let colon = credentials.firstIndex(of: ":") else {
                throw UsageError(message: "--basic-auth: expected user:password, got \(String(reflecting: credentials))")
            }
            request.url.user = String(credentials[..<colon])
            request.url.password = String(credentials[credentials.index(after: colon)...])
        }
        configuration = try SharedOptions.configuration(parsed)

        options = TransportOptions()
        options.proxy = try Self.proxySetting(parsed)
        if let hops = try parsed.count("--max-redirects") { options.maxRedirects = hops }
        if let timeout = try parsed.seconds("--connect-timeout") { options.connectTimeout = timeout > .zero ? timeout : nil }
        // An https:// proxy needs TLS even for a ws:// URL: the same trust settings verify the proxy.
        let proxy = endpoint.unixSocketPath == nil ? try? options.proxy.proxy(for: endpoint.url) : nil
        options.tls = try TLSOptions.client(parsed, isSecure: endpoint.url.isSecure || proxy?.scheme == .https)

        echo = parsed.has("--echo")
        binary = parsed.has("--binary")
        wholeInput = parsed.has("--no-line-split")
        keepOpen = parsed.has("--no-close")
        linger = try parsed.seconds("--linger") ?? .seconds(2)
        if parsed.has("--one-message") {
            guard parsed.value("--max-messages") == nil else { throw UsageError(message: "--one-message and --max-messages exclude each other") }
            messageLimit = 1
        } else {
            messageLimit = try parsed.count("--max-messages", minimum: 1)
        }
        if echo, binary || wholeInput || keepOpen {
            throw UsageError(message: "--echo does not read standard input: --binary, --no-line-split and --no-close do not apply")
        }
        reconnect = ReconnectPolicy()
        if let limit = try parsed.count("--reconnect") { reconnect.limit = limit }
        if let delay = try parsed.seconds("--reconnect-delay") {
            guard parsed.value("--reconnect") != nil else { throw UsageError(message: "--reconnect-delay needs --reconnect") }
            reconnect.delay = delay
        }
        switch (parsed.has("--jsonl"), parsed.has("--raw-output")) {
        case (true, true): throw UsageError(message: "--jsonl and --raw-output exclude each other")
        case (true, false): output = MessageOutput(format: .jsonLines(start: monotonicNow()))
        case (false, true): output = MessageOutput(format: .raw(separated: !wholeInput))
        case (false, false): output = MessageOutput(format: .lines)
        }
        options.receivesControlFrames = output.wantsControlFrames
    }

    /// `-H 'Name: value'`, as many as given.
    private static func headers(_ parsed: Arguments) throws(UsageError) -> Connection.HTTPHeaders {
        var headers = Connection.HTTPHeaders()
        for header in parsed.values("--header") {
            guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
                throw UsageError(message: "--header: expected 'Name: value', got \(String(reflecting: header))")
            }
            let value = header[header.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers.append(name: String(header[..<colon]), value: String(value))
        }
        return headers
    }

    /// `--proxy URL`, `--no-proxy`, or by default the environment's proxy, as curl does.
    static func proxySetting(_ parsed: Arguments) throws(UsageError) -> ProxySetting {
        let explicit = parsed.value("--proxy")
        if parsed.has("--no-proxy") {
            guard explicit == nil else { throw UsageError(message: "--proxy and --no-proxy exclude each other") }
            return .direct
        }
        guard let explicit else { return .environment }
        do throws(ProxyError) {
            return try .url(explicit)
        } catch {
            throw UsageError(message: "--proxy: \(error)")
        }
    }
}
