// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore
import WebSocketDeflate

/// A named workload: it prints one line, `NAME: <ours>, baseline <what> <theirs>, ratio <ours/baseline>`.
struct Workload {
    var name: String
    var run: () -> Void
    /// For `--frames N --wire-frames M`: build the wire for M frames, then parse exactly its first N
    /// frames once (parse workloads; serialize workloads send and take N frames and ignore M). Two runs with the same M and different N differ only by
    /// the parsing of N frames.
    var frames: ((_ n: Int, _ m: Int) -> Void)?
}

enum Workloads {
    static let sizes: [(String, Int)] = [("16B", 16), ("1KiB", 1024), ("64KiB", 64 << 10), ("1MiB", 1 << 20)]

    /// A workload by name, made only when it is asked for.
    struct Entry {
        let name: String
        let make: () -> Workload
    }

    /// Every workload, by name. Each is made only when selected: its fixtures (wires of megabytes,
    /// open connections, certificates) would otherwise all be on the heap while another runs, and a
    /// workload added here moved the count of another (serialize-server-1KiB 1,094 → 1,210
    /// instructions per frame, all in `malloc`, from a heap laid out differently).
    static var entries: [Entry] {
        var list: [Entry] = []
        func add(_ name: String, _ make: @escaping (String) -> Workload) {
            list.append(Entry(name: name, make: { make(name) }))
        }
        for (label, size) in sizes {
            add("parse-client-\(label)") { parse(name: $0, size: size, serverRole: false) }
            add("parse-server-\(label)") { parse(name: $0, size: size, serverRole: true) }
        }
        add("serialize-client-1KiB") { serialize(name: $0, size: 1024, client: true) }
        add("serialize-server-1KiB") { serialize(name: $0, size: 1024, client: false) }
        add("serialize-client-1KiB-lent") { serialize(name: $0, size: 1024, client: true, lent: true) }
        add("serialize-server-1KiB-lent") { serialize(name: $0, size: 1024, client: false, lent: true) }
        add("unmask-1MiB") { _ in unmask() }
        add("utf8-ascii-1MiB") { utf8(name: $0, bytes: Fixtures.ascii, chunk: 64 << 10) }
        add("utf8-cjk-1MiB") { utf8(name: $0, bytes: Fixtures.cjk, chunk: 64 << 10) }
        for (label, chunk) in [("1B", 1), ("16B", 16), ("1KiB", 1024)] {
            add("utf8-cjk-1MiB-chunks-\(label)") { utf8(name: $0, bytes: Fixtures.cjk, chunk: chunk) }
        }
        add("roundtrip-1KiB") { roundTrip(name: $0, size: 1024) }
        add("embed-echo-256B") { embedEcho(name: $0, size: 256) }
        add("embed-echo-lent-256B") { embedEcho(name: $0, size: 256, lent: true) }
        add("embed-echo-inplace-256B") { embedEcho(name: $0, size: 256, lent: true, inPlace: true) }
        add("handshake-server") { _ in handshakeServer() }
        add("handshake-server-browser") { _ in handshakeServerBrowser() }
        add("handshake-client") { _ in handshakeClient() }
        add("task-resume") { _ in taskResume() }
        add("deflate-roundtrip-64KiB") { deflateRoundTrip(name: $0, size: 64 << 10) }
        add("broadcast-1KiB-1000") { broadcast(name: $0, size: 1024, connections: 1000) }
        add("echo-256B") { echo(name: $0, size: 256) }
        add("echo-64KiB") { echo(name: $0, size: 64 << 10) }
        add("echo-200-connections") { echo(name: $0, size: 256, connections: 200) }
        add("tls-echo-256B") { tlsEcho(name: $0, size: 256) }
        add("tls-echo-64KiB") { tlsEcho(name: $0, size: 64 << 10) }
        add("tls-handshakes") { _ in tlsHandshakes() }
        add("tls-resumption") { _ in tlsResumption() }
        return list
    }

    /// Frames per run: enough bytes to be measurable, few enough to stay in cache for small frames.
    static func frameCount(size: Int) -> Int { max(4, min(20_000, (4 << 20) / max(size, 1))) }

    /// Parses frames (the server's unmasked ones as a client, or masked ones as a server, unmasking
    /// while parsing) and delivers each as an event; the input arrives in 64 KiB reads.
    static func parse(name: String, size: Int, serverRole: Bool) -> Workload {
        let count = frameCount(size: size)
        let wire = Fixtures.frames(count: count, size: size, fromClient: serverRole)
        let pair = Fixtures.openPair()
        let pristine = serverRole ? pair.server : pair.client
        /// The wire cut into 64 KiB reads, each its own array as a socket read would return it.
        func reads(_ wire: [UInt8], upTo limit: Int? = nil) -> [[UInt8]] {
            let total = limit ?? wire.count
            return stride(from: 0, to: total, by: 64 << 10).map { Array(wire[$0..<min(total, $0 + (64 << 10))]) }
        }
        func parseAll(_ chunks: [[UInt8]], maxEvents: Int = .max) -> Int {
            var connection = pristine
            var events = 0
            var seen = 0
            for chunk in chunks where events < maxEvents {
                connection.receive(chunk)
                // Lent payloads: the event without a copy (nextEvent() would allocate the message).
                while events < maxEvents, connection.nextEventView({ view in
                    switch view {
                    case .binary(let bytes), .text(let bytes): seen &+= bytes.count
                    case .other: break
                    }
                }) {
                    events += 1
                }
            }
            blackHole(seen)
            return events
        }
        let chunks = reads(wire)
        return Workload(name: name, run: {
            precondition(parseAll(chunks) == count, "\(name): wrong event count")
            let ours = Measure.rate(work: Double(count)) { blackHole(parseAll(chunks)) }
            var copy = [UInt8](repeating: 0, count: wire.count)
            let baseline = Measure.rate(work: Double(wire.count)) {
                copy.withUnsafeMutableBytes { dst in wire.withUnsafeBytes { dst.copyMemory(from: $0) } }
                blackHole(copy)
            }
            let oursBytes = ours * Double(wire.count) / Double(count)
            report(name, ours: "\(format3(ours / 1e6)) M frames/s (\(formatRate(oursBytes)))", baselineName: "memcpy",
                   theirs: formatRate(baseline), ratio: oursBytes / baseline)
        }, frames: { n, m in
            let chunks = reads(Fixtures.frames(count: max(n, m), size: size, fromClient: serverRole))
            precondition(parseAll(chunks, maxEvents: n) == n)
        })
    }

    /// Sends 1 KiB messages and takes each one's frame: with `lent`, as the adapters take output (lent
    /// where it lies, `withPendingOutput`), else as an owned array (`takeOutput()`), a fresh 1 KiB
    /// allocation per frame. That allocation's cost in glibc's `_int_malloc` swings with where
    /// earlier allocations lie (four layouts of the same code measured 1,163 to 1,304 per frame):
    /// the lent workloads count the connection's own work alone.
    static func serialize(name: String, size: Int, client: Bool, lent: Bool = false) -> Workload {
        @inline(__always) func take(_ connection: inout Connection) {
            if lent {
                connection.withPendingOutput { (bytes: UnsafeRawBufferPointer) -> Int in
                    blackHole(bytes.count)
                    return bytes.count
                }
            } else {
                blackHole(connection.takeOutput())
            }
        }
        return Workload(name: name, run: {
            let pair = Fixtures.openPair()
            let pristine = client ? pair.client : pair.server
            let payload = [UInt8](repeating: 0x41, count: size)
            let count = 1000
            let ours = Measure.rate(work: Double(count * size)) {
                var connection = pristine
                for _ in 0..<count {
                    try? connection.send(binary: payload)
                    take(&connection)
                }
            }
            var copy = [UInt8](repeating: 0, count: size)
            let baseline = Measure.rate(work: Double(size)) {
                copy.withUnsafeMutableBytes { dst in payload.withUnsafeBytes { dst.copyMemory(from: $0) } }
                blackHole(copy)
            }
            report(name, ours: formatRate(ours), baselineName: "memcpy", theirs: formatRate(baseline), ratio: ours / baseline)
        }, frames: { n, _ in
            // Send and take n frames, for instruction counting.
            let pair = Fixtures.openPair()
            var connection = client ? pair.client : pair.server
            let payload = [UInt8](repeating: 0x41, count: size)
            for _ in 0..<n {
                try? connection.send(binary: payload)
                take(&connection)
            }
        })
    }

    /// A minimal embedding (issue 27): a server connection in someone else's loop, fed one masked
    /// frame per read, echoing each message: the read array adopted, the payload unmasked into the
    /// scratch buffer and lent, answered with its own bytes (`answerNextEvent`, no copy out), the
    /// answer framed, and the output taken into the caller's reused array. No socket: what the core
    /// costs per echo.
    /// The core alone per echoed message: the frame received (adopted as an array, or `lent`: copied
    /// into a reusable read buffer, as a read would fill it, and parsed and unmasked there), answered
    /// with its own bytes, and the output taken into a reused array (or, `inPlace`, the echo framed in
    /// the read buffer and its pieces counted, as a `writev` of them would take them).
    static func embedEcho(name: String, size: Int, lent: Bool = false, inPlace: Bool = false) -> Workload {
        let pair = Fixtures.openPair()
        let frame = Fixtures.frames(count: 1, size: size, fromClient: true)
        func echo(_ count: Int) -> Int {
            var server = pair.server
            var output: [UInt8] = []
            var readBuffer = [UInt8](repeating: 0, count: 64 << 10)
            var written = 0
            for _ in 0..<count {
                if inPlace {
                    readBuffer.withUnsafeMutableBytes { buffer in
                        let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<frame.count])
                        frame.withUnsafeBytes { bytes.copyMemory(from: $0) }
                        try? server.receiveAndAnswer(lending: bytes, writingOutput: { pieces in
                            var total = 0
                            for piece in pieces { total &+= piece.count }
                            written &+= total
                            return total
                        }) { _ in .echo }
                    }
                    continue
                }
                if lent {
                    readBuffer.withUnsafeMutableBytes { buffer in
                        let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<frame.count])
                        frame.withUnsafeBytes { bytes.copyMemory(from: $0) }
                        try? server.receiveAndAnswer(lending: bytes) { _ in .echo }
                    }
                } else {
                    server.receive(frame)
                    while (try? server.answerNextEvent({ _ in .echo })) == true {}
                }
                server.takeOutput(into: &output)
                written &+= output.count
            }
            return written
        }
        return Workload(name: name, run: {
            let count = 20_000
            precondition(echo(1) == size + 4, "\(name): wrong echo")
            let ours = Measure.rate(work: Double(count)) { blackHole(echo(count)) }
            var copy = [UInt8](repeating: 0, count: frame.count)
            let baseline = Measure.rate(work: 1) {
                copy.withUnsafeMutableBytes { dst in frame.withUnsafeBytes { dst.copyMemory(from: $0) } }
                blackHole(copy)
            }
            report(name, ours: "\(format3(ours / 1e6)) M echoes/s", baselineName: "memcpy of the frame",
                   theirs: "\(format3(baseline / 1e6)) M/s", ratio: ours / baseline)
        }, frames: { n, _ in
            blackHole(echo(n))
        })
    }

    static func unmask() -> Workload {
        Workload(name: "unmask-1MiB", run: {
            var buffer = [UInt8](repeating: 0x5A, count: 1 << 20)
            let source = buffer
            var offset = 0
            let ours = Measure.rate(work: Double(buffer.count)) {
                buffer.withUnsafeMutableBytes { offset = BenchmarkHooks.mask($0, key: (0x37, 0xFA, 0x21, 0x3D), offset: offset) }
                blackHole(buffer)
            }
            let baseline = Measure.rate(work: Double(buffer.count)) {
                buffer.withUnsafeMutableBytes { dst in source.withUnsafeBytes { dst.copyMemory(from: $0) } }
                blackHole(buffer)
            }
            report("unmask-1MiB", ours: formatRate(ours), baselineName: "memcpy", theirs: formatRate(baseline), ratio: ours / baseline)
        }, frames: nil)
    }

    static func utf8(name: String, bytes: [UInt8], chunk: Int) -> Workload {
        Workload(name: name, run: {
            // Ours and UTF8Span in alternation: the two are close on ASCII, where a load change between
            // two separate measurements would decide the ratio.
            let (ours, span) = Measure.interleaved(work: Double(bytes.count), {
                let ok = bytes.withUnsafeBytes { BenchmarkHooks.validateUTF8($0, chunkSize: chunk) }
                precondition(ok)
            }, {
                let ok = bytes.withUnsafeBufferPointer { buffer in
                    (try? UTF8Span(validating: Span(_unsafeElements: buffer))) != nil
                }
                precondition(ok)
            })
            let string = Measure.rate(work: Double(bytes.count)) {
                precondition(String(validating: bytes, as: UTF8.self) != nil)
            }
            report(name, ours: formatRate(ours), baselineName: "UTF8Span(validating:)", theirs: formatRate(span), ratio: ours / span)
            report(name + "-vs-string", ours: formatRate(ours), baselineName: "String(validating:)", theirs: formatRate(string),
                   ratio: ours / string)
        }, frames: nil)
    }

    /// A client sends text messages compressed with permessage-deflate; the server inflates them.
    static func deflateRoundTrip(name: String, size: Int) -> Workload {
        Workload(name: name, run: {
            var config = Fixtures.configuration()
            config.extensions = [PerMessageDeflate()]
            let pair = Fixtures.openPair(configuration: config)
            let words = ["lorem ", "ipsum ", "dolor ", "sit ", "amet ", "κόσμε ", "0123 "]
            var rng = Connection.SeededGenerator(seed: 3)
            var text = ""
            while text.utf8.count < size { text += words.randomElement(using: &rng)! }
            let count = 50
            let ours = Measure.rate(work: Double(count * text.utf8.count), runs: 3) {
                var (client, server) = pair
                for _ in 0..<count {
                    try? client.send(text: text)
                    server.receive(client.takeOutput())
                    while let event = server.nextEvent() { blackHole(event) }
                }
            }
            var copy = [UInt8](repeating: 0, count: size)
            let source = [UInt8](text.utf8)
            let baseline = Measure.rate(work: Double(size)) {
                copy.withUnsafeMutableBytes { dst in source.withUnsafeBytes { dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<size])) } }
                blackHole(copy)
            }
            report(name, ours: formatRate(ours), baselineName: "memcpy", theirs: formatRate(baseline), ratio: ours / baseline)
        }, frames: nil)
    }

    /// One text message to `connections` open server connections, in memory: framed once as a
    /// `PreparedMessage` and sent to each (ours), against `send(text:)` on each (the baseline), each
    /// connection's output taken after its send. Measured in alternation; rates in broadcasts per
    /// second (one broadcast: one message to every connection, the preparation included).
    static func broadcast(name: String, size: Int, connections count: Int) -> Workload {
        Workload(name: name, run: {
            let text = String(repeating: "b", count: size)
            // Copies of one open connection: each gets buffers of its own on its first send.
            let server = Fixtures.openPair().server
            var (one, other) = (server, server)
            try? one.send(Connection.PreparedMessage(text: text))
            try? other.send(text: text)
            precondition(one.pendingOutputCount > size && one.takeOutput() == other.takeOutput(), "\(name): different frames")
            var prepared = [Connection](repeating: server, count: count)
            var plain = prepared
            var taken = 0
            let (ours, theirs) = Measure.interleaved(work: 1, {
                let message = Connection.PreparedMessage(text: text)
                for index in prepared.indices {
                    try? prepared[index].send(message)
                    taken &+= prepared[index].takeOutput().count
                }
            }, {
                for index in plain.indices {
                    try? plain[index].send(text: text)
                    taken &+= plain[index].takeOutput().count
                }
            })
            blackHole(taken)
            func describe(_ rate: Double) -> String {
                "\(Int(rate.rounded())) broadcasts/s (\(format3(rate * Double(count) / 1e6)) M sends/s)"
            }
            report(name, ours: describe(ours), baselineName: "send(text:) to each", theirs: describe(theirs),
                   ratio: ours / theirs)
        }, frames: nil)
    }

    static func roundTrip(name: String, size: Int) -> Workload {
        Workload(name: name, run: {
            let pair = Fixtures.openPair()
            let payload = [UInt8](repeating: 0x42, count: size)
            let count = 1000
            let ours = Measure.rate(work: Double(count * size)) {
                var (client, server) = pair
                for _ in 0..<count {
                    try? client.send(binary: payload)
                    server.receive(client.takeOutput())
                    while let event = server.nextEvent() { blackHole(event) }
                }
            }
            var copy = [UInt8](repeating: 0, count: size)
            let baseline = Measure.rate(work: Double(size)) {
                copy.withUnsafeMutableBytes { dst in payload.withUnsafeBytes { dst.copyMemory(from: $0) } }
                blackHole(copy)
            }
            report(name, ours: formatRate(ours), baselineName: "memcpy", theirs: formatRate(baseline), ratio: ours / baseline)
        }, frames: nil)
    }
}
