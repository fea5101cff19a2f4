// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketCore

/// `http-request`: a server connection fed arbitrary bytes from its first byte on (the HTTP request
/// parser, the §4.2.1 checks, the error responses, then the frames that follow an accepted request).
///
/// Input: `control`, two bytes of split point, then the bytes. Bits of `control`: 0x01 fragment
/// delivery; 0x02 and 0x10, the decision on a valid request (accept with the first subprotocol
/// offered, accept with none, reject with 403, accept the first extension offered with its
/// parameters); 0x04 the tight limits; 0x20 end of stream after the bytes.
///
/// Invariants, beyond those of every target: a valid request is within the limits and can be accepted
/// (or rejected) without an error; an invalid one is answered with its status (`HTTP/1.1 <status>`),
/// and the connection closes; an accepted one is answered with 101 and what follows is valid frames.
public enum HTTPRequestTarget {
    enum Decision: CaseIterable {
        case acceptFirstSubprotocol, acceptNone, reject, acceptFirstExtension
    }

    public static func run(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        let control = input.byte()
        let splitSeed = Int(input.uint16())
        let variant = Variant(fragments: control & 0x01 != 0, tight: control & 0x04 != 0)
        let decision = Decision.allCases[Int((control >> 1) & 1 | (control >> 3) & 2)]
        let endOfStream = control & 0x20 != 0
        let wire = input.rest()

        let server: Connection
        do { server = try Connection(role: .server, configuration: variant.configuration, random: Connection.SeededGenerator(seed: 1)) } catch {
            fuzzFailure("cannot make a server: \(error)")
        }
        let whole = feed(server, wire, cuts: [], endOfStream: endOfStream, decision: decision)
        let cut = splitSeed % (wire.count + 1)
        let split = feed(server, wire, cuts: [cut], endOfStream: endOfStream, decision: decision)
        FrameTarget.compareRuns(whole, split, exactEvents: !variant.fragments, context: "request split at \(cut) of \(wire.count)",
                                frames: .init(writerIsClient: false, outputLimit: variant.configuration.limits.maxBufferedOutput,
                                              afterHead: true))
        Trace.print("server (\(variant), \(decision)): events \(whole.events), output \(String(decoding: whole.output.prefix(200), as: UTF8.self).debugDescription)")
        checkResponse(whole, decision: decision)
    }

    static func feed(_ connection: Connection, _ wire: [UInt8], cuts: [Int], endOfStream: Bool, decision: Decision) -> FrameTarget.Run {
        var connection = connection
        let limits = connection.configuration.limits
        var checker = EventChecker(who: "server", limits: limits)
        var output: [UInt8] = []
        let act: (Connection.Event, inout Connection) -> Void = { event, connection in
            guard case .handshakeRequest(let request) = event else { return }
            checkWithinLimits(request.head, limits: limits)
            checkHeaderViews(request.head.headers, who: "server")
            do {
                try decide(decision, request, &connection)
            } catch {
                fuzzFailure("server: \(decision) of a request it validated threw \(error): \(request)")
            }
        }
        var start = 0
        for end in cuts + [wire.count] {
            connection.receive(wire[start..<end])
            start = end
            checker.drain(&connection, act: act)
            MemoryBounds.check(connection, who: "server")
            MemoryBounds.checkInputDrained(connection, who: "server")
            output += connection.takeOutput()
        }
        if endOfStream {
            connection.receiveEOF()
            checker.drain(&connection, act: act)
            MemoryBounds.check(connection, who: "server")
            MemoryBounds.checkInputDrained(connection, who: "server")
            output += connection.takeOutput()
        }
        return FrameTarget.Run(events: checker.events, output: output, state: connection.state)
    }

    static func decide(_ decision: Decision, _ request: Connection.HandshakeRequest, _ connection: inout Connection) throws(Connection.UsageError) {
        switch decision {
        case .acceptFirstSubprotocol: try connection.accept(subprotocol: request.subprotocols.first)
        case .acceptNone: try connection.accept()
        case .reject: try connection.reject(status: 403, body: Array("no\n".utf8))
        case .acceptFirstExtension:
            // With its parameters, as a server echoing an offer does. A value the parser took but that
            // cannot be written back (a control character in a quoted string) is refused with
            // invalidHeader, leaving the request pending: accept without it then.
            do {
                try connection.accept(extensions: Array(request.extensions.prefix(1)))
            } catch {
                guard error.invalidHeader != nil else { throw error }
                guard connection.pendingHandshakeRequest == request else {
                    fuzzFailure("server: a refused accept changed the connection")
                }
                try connection.accept()
            }
        }
    }

    /// A parsed head's headers, kept as its bytes, read as the same fields built as strings: the
    /// count, every field in order, and each name's lookups.
    static func checkHeaderViews(_ headers: Connection.HTTPHeaders, who: String) {
        let fields = headers.fields
        let built = Connection.HTTPHeaders(fields.map { ($0.name, $0.value) })
        guard headers.count == fields.count, headers.isEmpty == fields.isEmpty, headers == built, built == headers,
              Array(headers) == fields else {
            fuzzFailure("\(who): parsed headers \(fields) do not read as the same fields built")
        }
        for name in Set(fields.map { $0.name.lowercased() }) {
            guard headers[name] == built[name], headers.values(for: name) == built.values(for: name),
                  headers.contains(name: name) == built.contains(name: name) else {
                fuzzFailure("\(who): parsed headers disagree on \(name): \(headers.values(for: name)) against \(built.values(for: name))")
            }
        }
    }

    static func checkWithinLimits(_ head: Connection.HTTPRequestHead, limits: Connection.Limits) {
        guard head.headers.count <= limits.maxHeaderCount else {
            fuzzFailure("a request with \(head.headers.count) headers passed maxHeaderCount \(limits.maxHeaderCount)")
        }
        let requestLine = "\(head.method) \(head.target) \(head.version)".utf8.count
        guard requestLine <= limits.maxRequestLineLength else {
            fuzzFailure("a request line of \(requestLine) bytes passed maxRequestLineLength \(limits.maxRequestLineLength)")
        }
    }

    /// The output answers the request: its error status, the rejection, or 101 and valid frames.
    static func checkResponse(_ run: FrameTarget.Run, decision: Decision) {
        let output = run.output
        for event in run.events {
            switch event {
            case .handshakeFailed(let failure) where failure.invalidRequest != nil:
                let error = failure.invalidRequest!
                expectStatusLine(output, "HTTP/1.1 \(error.httpStatus) ", for: "\(error)")
                return
            case .handshakeFailed(let failure):
                // End of stream before a whole head: nothing to answer.
                guard output.isEmpty else { fuzzFailure("server: \(failure) with \(output.count) bytes of output") }
                return
            case .handshakeRequest(let request):
                guard decision != .reject else {
                    expectStatusLine(output, "HTTP/1.1 403 ", for: "a rejection")
                    return
                }
                expectStatusLine(output, "HTTP/1.1 101 Switching Protocols\r\n", for: "an accepted request")
                guard let end = headEnd(output) else { fuzzFailure("server: the 101 response has no end") }
                let head = String(decoding: output[..<end], as: UTF8.self)
                if decision == .acceptFirstSubprotocol, let chosen = request.subprotocols.first {
                    guard head.contains("\r\nSec-WebSocket-Protocol: \(chosen)\r\n") else {
                        fuzzFailure("server: the 101 response lacks the subprotocol \(chosen)")
                    }
                }
                // What follows the head is frames: valid ones.
                var decoder = WireDecoder(masked: false, writer: "server")
                decoder.feed(Array(output[end...]))
                return
            default:
                continue
            }
        }
        guard output.isEmpty else { fuzzFailure("server: \(output.count) bytes of output without a decision") }
    }

    static func expectStatusLine(_ output: [UInt8], _ prefix: String, for what: String) {
        guard output.starts(with: prefix.utf8) else {
            fuzzFailure("server: \(what) answered with \(String(decoding: output.prefix(40), as: UTF8.self).debugDescription)")
        }
    }

    /// The offset just past the first CRLF CRLF.
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i + 4
        }
        return nil
    }
}

/// `http-response`: a client that sent its request (with the RFC 6455 §1.3 key), fed arbitrary bytes
/// as the server's answer (the HTTP response parser, the §4.1 checks, interim responses, the refusal
/// body reader with every framing, then the frames after a 101).
///
/// Input: `control`, two bytes of split point, then the bytes. Bits of `control`: 0x01 fragment
/// delivery; 0x02 the client offers subprotocols (chat, superchat) and extensions (permessage-deflate,
/// x-fuzz); 0x04 the tight limits; 0x20 end of stream after the bytes (which ends a body read until
/// close).
///
/// Invariants, beyond those of every target: a refusal's status is 200-599 and its body is cut at
/// `maxRejectionBodySize`; heads are within the limits; an accepted handshake chose only what was
/// offered; the client writes nothing but valid masked frames after it.
public enum HTTPResponseTarget {
    public static func run(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        let control = input.byte()
        let splitSeed = Int(input.uint16())
        let variant = Variant(fragments: control & 0x01 != 0, tight: control & 0x04 != 0)
        let offers = control & 0x02 != 0
        let endOfStream = control & 0x20 != 0
        let wire = input.rest()

        let client = Prepared.awaitingResponse(variant: variant, offers: offers)
        let whole = feed(client, wire, cuts: [], endOfStream: endOfStream)
        let cut = splitSeed % (wire.count + 1)
        let split = feed(client, wire, cuts: [cut], endOfStream: endOfStream)
        FrameTarget.compareRuns(whole, split, exactEvents: !variant.fragments, context: "response split at \(cut) of \(wire.count)",
                                frames: .init(writerIsClient: true, outputLimit: variant.configuration.limits.maxBufferedOutput))
        Trace.print("client (\(variant), offers: \(offers)): events \(whole.events), \(whole.output.count) bytes of output")

        let limits = variant.configuration.limits
        let options = Prepared.clientOptions(offers: offers)
        var opened = false
        for event in whole.events {
            switch event {
            case .handshakeFailed(let failure) where failure.response != nil:
                // A refusal, or a redirect (which carries the same response).
                let response = failure.response!
                guard (200...599).contains(response.status), response.body.count <= limits.maxRejectionBodySize,
                      response.headers.count <= limits.maxHeaderCount else {
                    fuzzFailure("client: a refusal beyond the limits: status \(response.status), \(response.headers.count) headers, body \(response.body.count) bytes")
                }
                // A redirect is a 3xx with exactly one Location, to a ws/wss URL that parses again as itself.
                if let redirect = failure.redirected {
                    guard [301, 302, 303, 307, 308].contains(redirect.status),
                          response.headers.values(for: "Location").count == 1,
                          (try? WebSocketURL(parsing: redirect.target.absoluteString)) == redirect.target else {
                        fuzzFailure("client: redirect \(redirect.status) to \(redirect.target) from \(response.headers)")
                    }
                }
            case .handshakeCompleted(let result):
                opened = true
                guard result.headers.count <= limits.maxHeaderCount else { fuzzFailure("client: \(result.headers.count) headers") }
                HTTPRequestTarget.checkHeaderViews(result.headers, who: "client")
                if let chosen = result.subprotocol, !options.subprotocols.contains(chosen) {
                    fuzzFailure("client: accepted the subprotocol \(chosen), which it did not offer")
                }
                for accepted in result.extensions where !options.extensions.contains(where: { $0.name.lowercased() == accepted.name.lowercased() }) {
                    fuzzFailure("client: accepted the extension \(accepted.name), which it did not offer")
                }
            default:
                continue
            }
        }
        // Before the handshake completes the client writes nothing (its request was taken); after, only
        // valid masked frames.
        guard opened || whole.output.isEmpty else { fuzzFailure("client: \(whole.output.count) bytes of output while connecting") }
        var decoder = WireDecoder(masked: true, writer: "client")
        decoder.feed(whole.output)
    }

    static func feed(_ connection: Connection, _ wire: [UInt8], cuts: [Int], endOfStream: Bool) -> FrameTarget.Run {
        var connection = connection
        var checker = EventChecker(who: "client", limits: connection.configuration.limits)
        var output: [UInt8] = []
        var start = 0
        for end in cuts + [wire.count] {
            connection.receive(wire[start..<end])
            start = end
            checker.drain(&connection)
            MemoryBounds.check(connection, who: "client")
            MemoryBounds.checkInputDrained(connection, who: "client")
            output += connection.takeOutput()
        }
        if endOfStream {
            connection.receiveEOF()
            checker.drain(&connection)
            MemoryBounds.check(connection, who: "client")
            MemoryBounds.checkInputDrained(connection, who: "client")
            output += connection.takeOutput()
        }
        return FrameTarget.Run(events: checker.events, output: output, state: connection.state)
    }
}
