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
    /// sends throw ``ConnectionError/outputBufferFull``. Default 64 MiB. Automatic pongs are skipped,
    /// not queued, while the buffer is over this mark (RFC 6455 §5.5.3 lets an endpoint answer only the
    /// latest ping).
    public var maxBufferedOutput: Int = 64 << 20

    /// The defaults above: generous for real traffic, bounded against a hostile peer.
    public init() {}
}

/// Timers of a connection. All are optional (`nil` turns one off) and act only on the times the caller
/// reports through ``Connection/advanceTime(to:)``.
public struct Timeouts: Sendable, Hashable {
    /// How long the opening handshake may take. Default 10 seconds.
    public var handshake: Duration? = .seconds(10)
    /// How long to wait for the peer's Close frame after sending ours, and (client) for the server to
    /// close the transport after the closing handshake. Default 5 seconds.
    public var close: Duration? = .seconds(5)
    /// After the connection closed, how long to wait for the peer to close the transport once ours is
    /// half-closed (``TransportDirective/halfCloseAndDrain(deadline:)``), reading and discarding what
    /// it still sends, before closing anyway. Default 2 seconds: a peer that answers at all closes
    /// within a round trip; a peer that never does cannot hold the socket longer than this. `nil`
    /// closes the transport at once (``TransportDirective/close``), risking a reset.
    public var linger: Duration? = .seconds(2)
    /// How often to send a keepalive ping while open. Default `nil` (no keepalive).
    public var keepaliveInterval: Duration? = nil
    /// How long a keepalive ping may wait for a pong before the peer is declared dead. Default 20 seconds.
    public var keepaliveTimeout: Duration? = .seconds(20)

    /// The defaults above: a handshake and close bounded, no keepalive.
    public init() {}
}

/// How received data messages are delivered.
public enum Delivery: Sendable, Hashable {
    /// Whole messages: ``Event/text(_:)`` and ``Event/binary(_:)``. The default.
    case messages
    /// Payload as it arrives: ``Event/fragment(_:)`` for every piece of payload available, even part of
    /// a frame, so that large messages never have to be held whole. Text is still validated as UTF-8
    /// across pieces.
    case fragments
}

/// Everything that tunes a ``Connection``.
public struct Configuration: Sendable {
    /// The bounds on what the peer may make the connection hold: frame, message and header sizes,
    /// fragments, buffered output. Each is checked before memory is spent.
    public var limits = Limits()
    /// The handshake, close, linger and keepalive timers, driven by ``Connection/advanceTime(to:)``.
    public var timeouts = Timeouts()
    /// Whole messages (the default) or payload as it arrives.
    public var delivery = Delivery.messages
    /// Answer every ping with a pong automatically (RFC 6455 §5.5.2). Default `true`. Pings are
    /// reported as events either way.
    public var respondsToPingsAutomatically = true
    /// Split outgoing messages into frames of at most this many payload bytes. Default `nil` (one frame
    /// per message).
    public var fragmentationSize: Int? = nil
    /// Extensions to negotiate (RFC 6455 §9), such as permessage-deflate from the `WebSocketDeflate`
    /// module. A client offers them in this order; a server accepts the first acceptable offer of each.
    /// Default: none.
    public var extensions: [any WebSocketExtension] = []

    /// The defaults: the limits and timeouts above, whole messages, automatic pongs, no
    /// fragmentation, no extensions.
    public init() {}
}
