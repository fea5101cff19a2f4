// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable @_spi(Testing) import WebSocketTransport

/// A proxy for tests, as a script: each step waits for exactly the bytes it expects from the client,
/// then produces its reply. Once the script is done, whatever the client sends is tunnel data.
struct ScriptedProxy {
    struct Step {
        var expect: [UInt8]
        var reply: [UInt8]
    }

    var steps: [Step]
    /// Bytes from the client for the current step.
    private var pending: [UInt8] = []
    private var stepIndex = 0
    /// Every byte the proxy sends, in order (the replies so far).
    private(set) var produced: [UInt8] = []
    /// Bytes received after the script was done.
    private(set) var tunnelData: [UInt8] = []
    /// What went wrong, if anything: bytes that are not what the step expects.
    private(set) var violation: String?

    init(_ steps: [Step]) {
        self.steps = steps
        // A step that expects nothing replies at once.
        advance()
    }

    var isDone: Bool { stepIndex == steps.count }

    mutating func receive(_ bytes: [UInt8]) {
        for byte in bytes {
            guard !isDone else {
                tunnelData.append(byte)
                continue
            }
            pending.append(byte)
            let expect = steps[stepIndex].expect
            guard expect.starts(with: pending) else {
                if violation == nil { violation = "step \(stepIndex): got \(pending), expected \(expect)" }
                continue
            }
            if pending.count == expect.count {
                pending = []
                produced += steps[stepIndex].reply
                stepIndex += 1
                advance()
            }
        }
    }

    private mutating func advance() {
        while !isDone, steps[stepIndex].expect.isEmpty {
            produced += steps[stepIndex].reply
            stepIndex += 1
        }
    }
}

/// How the proxy's byte stream is cut into receives: whole, one byte each, or in two at `k`.
enum Cuts: Sendable, CustomStringConvertible {
    case whole
    case bytewise
    case at(Int)

    /// Whole, bytewise, and every two-piece split of a stream of `count` bytes.
    static func all(count: Int) -> [Cuts] {
        [.whole, .bytewise] + (1..<max(1, count)).map { .at($0) }
    }

    /// The end of the piece that starts at `start`, in a stream of `count`.
    func end(from start: Int, count: Int) -> Int {
        switch self {
        case .whole: return count
        case .bytewise: return min(count, start + 1)
        case .at(let k): return start < k ? min(k, count) : count
        }
    }

    var description: String {
        switch self {
        case .whole: return "whole"
        case .bytewise: return "bytewise"
        case .at(let k): return "at \(k)"
        }
    }
}

/// What a run of a tunnel against a scripted proxy gave.
struct TunnelRun: Equatable {
    var status: TransportLayerStatus
    /// Bytes the tunnel passed up.
    var readUp: [UInt8]
    /// Bytes the proxy received after its script (what the tunnel carried from above).
    var tunnelData: [UInt8]
    var violation: String?
}

/// Runs `layer` against `proxy`: the layer's output goes to the proxy; the proxy's bytes (and then
/// `after`, bytes it sends once its script is done: the target's) go to the layer in pieces cut as
/// `cuts` says, never before the proxy produced them. `early` is sent from above before anything,
/// `late` once established; `eof` ends the stream after the last byte. Checks on the way that
/// nothing from above reaches the proxy while the layer is establishing.
func runTunnel<Layer: TransportLayer>(_ layer: inout Layer, proxy: ScriptedProxy, after: [UInt8] = [], cuts: Cuts,
                                      early: [UInt8] = [], late: [UInt8] = [], eof: Bool = false,
                                      check: (inout Layer) -> Void = { _ in }) -> TunnelRun {
    var proxy = proxy
    var readUp: [UInt8] = []
    var delivered = 0
    var sentLate = false
    var violation: String?
    early.withUnsafeBytes { layer.send($0) }
    func moveOutput() {
        let wasEstablishing = layer.status == .establishing
        var bytes: [UInt8] = []
        layer.withPendingOutput { chunk in
            bytes = Array(chunk)
            return chunk.count
        }
        let before = proxy.tunnelData.count
        proxy.receive(bytes)
        if wasEstablishing, proxy.tunnelData.count > before, violation == nil {
            violation = "bytes from above reached the proxy while the tunnel was establishing"
        }
    }
    while true {
        moveOutput()
        var stream = proxy.produced
        if proxy.isDone { stream += after }
        guard delivered < stream.count else { break }
        let end = min(cuts.end(from: delivered, count: proxy.produced.count + after.count), stream.count)
        stream[delivered..<end].withUnsafeBytes { layer.receive($0) }
        delivered = end
        readUp += readAll(&layer)
        check(&layer)
        if !sentLate, layer.status == .established {
            sentLate = true
            late.withUnsafeBytes { layer.send($0) }
        }
    }
    if eof {
        layer.receiveEOF()
        readUp += readAll(&layer)
    }
    moveOutput()
    return TunnelRun(status: layer.status, readUp: readUp, tunnelData: proxy.tunnelData,
                     violation: violation ?? proxy.violation)
}

/// Reads until `read(into:)` returns 0, through a 7-byte buffer (so that reads are partial).
func readAll<Layer: TransportLayer>(_ layer: inout Layer) -> [UInt8] {
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 7)
    while true {
        let count = buffer.withUnsafeMutableBytes { layer.read(into: $0) }
        guard count > 0 else { return result }
        result += buffer[..<count]
    }
}

extension TransportLayer {
    mutating func receive(_ bytes: [UInt8]) { bytes.withUnsafeBytes { receive($0) } }
    mutating func send(_ bytes: [UInt8]) { bytes.withUnsafeBytes { send($0) } }

    /// Everything waiting to go below.
    mutating func takeOutput() -> [UInt8] {
        var bytes: [UInt8] = []
        withPendingOutput { chunk in
            bytes = Array(chunk)
            return chunk.count
        }
        return bytes
    }

    /// The proxy error of a failed layer.
    var proxyError: ProxyError? { status.proxyError }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

extension TransportLayerStatus {
    /// The proxy error of a failed layer.
    var proxyError: ProxyError? {
        if case .failed(.proxy(let error)) = self { return error }
        return nil
    }
}
