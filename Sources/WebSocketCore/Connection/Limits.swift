// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// Limits on what a peer can make a connection hold. Each is checked before memory is spent.
    public struct Limits: Sendable, Hashable {
        /// The largest frame payload accepted, in bytes. Default 16 MiB. A larger length in a frame header
        /// fails the connection with 1009 before any payload byte is stored.
        public var maxFrameSize: Int = 16 << 20
        /// The largest message accepted, in bytes, summed over its fragments (before any extension
        /// transforms it). Default 16 MiB, enough for every Autobahn case, small enough that a few hundred
        /// connections cannot exhaust a server. Exceeding it fails the connection with 1009.
        public var maxMessageSize: Int = 16 << 20
        /// The largest number of frames one message may be split into. Default 1,048,576 (2^20): the
        /// default ``maxMessageSize`` in fragments of 16 bytes, smaller than any sender has a reason to
        /// use. Autobahn|Testsuite's smallest, 4 MiB in 64-byte fragments (cases 9.3.1 and 9.4.1), takes
        /// 65,537 frames, the last one empty, which a cap of 65,536 refused.
        ///
        /// A fragment costs no memory beyond its payload here, and no more work per byte received than a
        /// message of its own, so this is not what bounds memory or CPU (``maxMessageSize`` and the input
        /// rate do). It ends a message that a peer keeps open on empty or near-empty fragments, which the
        /// size limit never sees. A message of exactly this many frames is accepted; the header of the
        /// next frame fails the connection with 1009. Values below 1 count as 1.
        public var maxFragmentsPerMessage: Int = 1 << 20
        /// The largest HTTP head (request or status line plus headers), in bytes. Default 16 KiB; beyond it a
        /// server answers 431 and a client fails the handshake.
        public var maxHeaderBytes: Int = 16 << 10
        /// The largest number of header fields. Default 128; beyond it a server answers 431.
        public var maxHeaderCount: Int = 128
        /// The longest request line (or status line), in bytes. Default 8 KiB; beyond it a server answers 414.
        public var maxRequestLineLength: Int = 8 << 10
        /// The most body bytes of a refusing (non-101) response a client keeps for its report. Default 64 KiB.
        public var maxRejectionBodySize: Int = 64 << 10
        /// The most bytes of output the connection will hold before ``Connection/send(text:compress:)`` and the other
        /// sends throw ``Connection/UsageError/outputBufferFull``, counting what the caller took and says it
        /// still holds (``Connection/outputHeldByCaller``). Default 64 MiB. Automatic pongs are skipped,
        /// not queued, while the buffer is over this mark (RFC 6455 §5.5.3 lets an endpoint answer only the
        /// latest ping).
        public var maxBufferedOutput: Int = 64 << 20
        /// The most awaited pings (``Connection/sendPing(_:awaitingPongWithin:)``) a connection holds at
        /// once: pings whose pong has not come, and ended pings whose outcome
        /// ``Connection/nextPingOutcome()`` has not returned yet. Default 64, far more than anyone waits
        /// for at once. Past it, `sendPing` throws ``Connection/UsageError/tooManyAwaitedPings`` before
        /// anything is sent or stored, so a peer that never answers, or a caller that never takes the
        /// outcomes, cannot make the connection's memory grow. Values below 0 count as 0 (no awaited
        /// ping is allowed).
        public var maxAwaitedPings: Int = 64

        /// The defaults above: generous for real traffic, bounded against a hostile peer.
        public init() {}
    }
}
