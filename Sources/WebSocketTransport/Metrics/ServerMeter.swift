// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import CWebSocketSystem
import WebSocketCore

/// One thread's counters of one server (a loop's): written by that thread only, with plain
/// loads, adds and stores (`cwebsocket_counter_add`: relaxed atomics, no lock, no locked
/// instruction, no allocation); read by any thread, summed over the threads by
/// ``ServerMeter/sum(_:)``. A value read while the loop counts may miss the latest increments,
/// never see a torn one.
///
/// A pointer to storage that a ``ServerMeter/Storage`` owns, not a reference: a session holds
/// it as a trivial value, so counting costs no retain or release. Whoever holds a meter keeps its
/// storage alive (a server's sockets keep their server, which keeps its meters).
///
/// `@unchecked Sendable`: the slots are read and written through the relaxed atomics only.
package struct ServerMeter: @unchecked Sendable {
    /// The slots of one meter, allocated and zeroed once, freed with it.
    ///
    /// About 40 KiB, a slot for every HTTP status and close code, taken from the kernel as zeroed
    /// pages: only the pages a loop counts in become resident (a few, in practice), where zeroing
    /// them here would have made all of them private memory of the process, on every loop.
    package final class Storage: @unchecked Sendable {
        package let meter: ServerMeter
        private let isMapped: Bool

        package init() {
            let size = Slot.count * MemoryLayout<Int>.stride
            if let pages = cwebsocket_zeroed_pages(size) {
                meter = ServerMeter(slots: pages.bindMemory(to: Int.self, capacity: Slot.count))
                isMapped = true
            } else {
                let slots = UnsafeMutablePointer<Int>.allocate(capacity: Slot.count)
                slots.initialize(repeating: 0, count: Slot.count)
                meter = ServerMeter(slots: slots)
                isMapped = false
            }
        }

        deinit {
            if isMapped {
                cwebsocket_free_pages(UnsafeMutableRawPointer(meter.slots), Slot.count * MemoryLayout<Int>.stride)
            } else {
                meter.slots.deallocate()
            }
        }
    }

    /// Where each counter lives among the slots.
    package enum Slot {
        static let accepted = 0, opened = 1, openEnded = 2, ended = 3
        static let messagesReceived = 4, messagesSent = 5, bytesReceived = 6, bytesSent = 7
        static let pingsSent = 8, roundTrips = 9, roundTripNanoseconds = 10, backpressure = 11
        static let roundTripBuckets = 12
        static let refusals = roundTripBuckets + ServerMetrics.Histogram.bounds.count + 1
        static let handshakeStatuses = refusals + refusalOrder.count
        /// The refusals in slot order, made once (`allCases` builds an array at every use, and a
        /// flood of refused handshakes counts one each).
        static let refusalOrder = ServerMetrics.Refusal.allCases
        static let plainStatuses = handshakeStatuses + statusCount
        static let closesSent = plainStatuses + statusCount
        static let closesReceived = closesSent + closeCodeCount
        static let count = closesReceived + closeCodeCount

        /// HTTP statuses 100-599, one slot each, and one for any other (none is sent: the core
        /// checks every status it writes).
        static let statusCount = 501
        /// Close codes 1000-1015, 3000-4999, and one for any other.
        static let closeCodeCount = 16 + 2000 + 1

        static func status(_ status: Int) -> Int { (100..<600).contains(status) ? status - 100 : statusCount - 1 }

        static func status(atIndex index: Int) -> Int { index < statusCount - 1 ? 100 + index : 0 }

        static func closeCode(_ code: Connection.CloseCode) -> Int {
            switch code.rawValue {
            case 1000..<1016: return Int(code.rawValue) - 1000
            case 3000..<5000: return 16 + Int(code.rawValue) - 3000
            default: return closeCodeCount - 1
            }
        }

        static func closeCode(atIndex index: Int) -> UInt16 {
            switch index {
            case 0..<16: return UInt16(1000 + index)
            case 16..<(16 + 2000): return UInt16(3000 + index - 16)
            default: return 0
            }
        }
    }

    let slots: UnsafeMutablePointer<Int>

    @inline(__always)
    func add(_ slot: Int, _ amount: Int = 1) {
        cwebsocket_counter_add(slots + slot, amount)
    }

    @inline(__always)
    func read(_ slot: Int) -> Int { cwebsocket_counter_read(slots + slot) }

    // MARK: What the adapters and sessions count (on the meter's thread)

    /// A connection was accepted from a listening socket.
    package func countAccepted() { add(Slot.accepted) }
    /// A connection's opening handshake completed.
    package func countOpened() { add(Slot.opened) }
    /// `count` bytes were read from a socket.
    @inline(__always) package func countBytesReceived(_ count: Int) { add(Slot.bytesReceived, count) }
    /// `count` bytes were written to a socket.
    @inline(__always) package func countBytesSent(_ count: Int) { add(Slot.bytesSent, count) }
    @inline(__always) func countMessageReceived() { add(Slot.messagesReceived) }
    @inline(__always) func countMessageSent() { add(Slot.messagesSent) }
    func countPingSent() { add(Slot.pingsSent) }

    func countRoundTrip(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds >= Int64(Int.max / 1_000_000_000) ? Int.max / 2 : Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        add(Slot.roundTrips)
        add(Slot.roundTripNanoseconds, nanoseconds)
        let value = Double(nanoseconds) / 1e9
        let bucket = ServerMetrics.Histogram.bounds.firstIndex { value <= $0 } ?? ServerMetrics.Histogram.bounds.count
        add(Slot.roundTripBuckets + bucket)
    }

    func countRefusal(_ refusal: ServerMetrics.Refusal) {
        add(Slot.refusals + (Slot.refusalOrder.firstIndex(of: refusal) ?? 0))
    }

    func countHandshakeFailed(status: Int) { add(Slot.handshakeStatuses + Slot.status(status)) }
    func countPlainRequest(status: Int) { add(Slot.plainStatuses + Slot.status(status)) }

    /// A connection ended: its Close frames, and whether it had opened.
    func countEnded(wasOpen: Bool, sent: Connection.CloseCode?, received: Connection.CloseCode?, droppedForBackpressure: Bool) {
        add(Slot.ended)
        if wasOpen { add(Slot.openEnded) }
        if let sent { add(Slot.closesSent + Slot.closeCode(sent)) }
        if let received { add(Slot.closesReceived + Slot.closeCode(received)) }
        if droppedForBackpressure { add(Slot.backpressure) }
    }

    // MARK: Reading (any thread)

    /// The counters of `meters`, summed.
    package static func sum(_ meters: [ServerMeter]) -> ServerMetrics {
        var metrics = ServerMetrics()
        func total(_ slot: Int) -> Int { meters.reduce(0) { $0 &+ $1.read(slot) } }
        metrics.connectionsAccepted = total(Slot.accepted)
        metrics.connectionsOpened = total(Slot.opened)
        metrics.connectionsOpen = max(0, metrics.connectionsOpened - total(Slot.openEnded))
        metrics.connectionsEnded = total(Slot.ended)
        metrics.messagesReceived = total(Slot.messagesReceived)
        metrics.messagesSent = total(Slot.messagesSent)
        metrics.bytesReceived = total(Slot.bytesReceived)
        metrics.bytesSent = total(Slot.bytesSent)
        metrics.pingsSent = total(Slot.pingsSent)
        metrics.droppedForBackpressure = total(Slot.backpressure)
        metrics.pingRoundTrips.count = total(Slot.roundTrips)
        metrics.pingRoundTrips.sumNanoseconds = total(Slot.roundTripNanoseconds)
        for index in metrics.pingRoundTrips.buckets.indices {
            metrics.pingRoundTrips.buckets[index] = total(Slot.roundTripBuckets + index)
        }
        for (index, refusal) in Slot.refusalOrder.enumerated() {
            let value = total(Slot.refusals + index)
            if value != 0 { metrics.refused[refusal] = value }
        }
        for index in 0..<Slot.statusCount {
            let failed = total(Slot.handshakeStatuses + index)
            if failed != 0 { metrics.handshakesFailed[Slot.status(atIndex: index)] = failed }
            let plain = total(Slot.plainStatuses + index)
            if plain != 0 { metrics.plainRequests[Slot.status(atIndex: index)] = plain }
        }
        for index in 0..<Slot.closeCodeCount {
            let sent = total(Slot.closesSent + index)
            if sent != 0 { metrics.closesSent[Slot.closeCode(atIndex: index), default: 0] += sent }
            let received = total(Slot.closesReceived + index)
            if received != 0 { metrics.closesReceived[Slot.closeCode(atIndex: index), default: 0] += received }
        }
        return metrics
    }
}
