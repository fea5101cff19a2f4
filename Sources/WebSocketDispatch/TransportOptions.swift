import WebSocketCore

/// How the Dispatch adapter runs a connection's socket. Protocol limits and timers are in the core's
/// ``Configuration``; these are the transport's own knobs.
///
/// The high-water mark of the output buffer is the core's ``Limits/maxBufferedOutput`` (default
/// 64 MiB): a send that finds ``WebSocket/bufferedAmount`` at or above it is refused, so memory stays
/// within the mark plus one message.
public struct TransportOptions: Sendable, Hashable {
    /// How long each TCP connect attempt may take before the next address is tried. Default 10 seconds.
    /// The opening handshake's own timeout (``Timeouts/handshake``) starts once TCP is connected.
    public var connectTimeout: Duration = .seconds(10)
    /// The ``WebSocket/bufferedAmount`` at or below which ``WebSocketEvent/drained(bufferedAmount:)``
    /// fires and sends waiting for room resume. Default 64 KiB: low enough that the socket stays busy
    /// while you produce the next batch.
    public var lowWaterMark: Int = 64 << 10
    /// The most bytes of received messages handed to you and not yet consumed (handler still running,
    /// or messages not yet taken from ``WebSocket/messages``) before the socket stops reading, which
    /// lets TCP flow control slow the peer down. Default 4 MiB; one message larger than this still
    /// arrives whole (its size is bounded by ``Limits/maxMessageSize``).
    public var maxUndeliveredBytes: Int = 4 << 20
    /// The size of each `recv`. Default 64 KiB.
    public var readChunkSize: Int = 64 << 10
    /// When the socket is to be closed, how long to keep trying to write the last bytes (a Close frame,
    /// a refusal), and (server, after a clean close) to wait for the client to close its side before
    /// closing ours, so that no unread byte turns our close into a reset. Default 2 seconds.
    public var lingerTimeout: Duration = .seconds(2)
    /// Set `TCP_NODELAY`: frames are written whole, so Nagle's algorithm only adds latency. Default `true`.
    public var noDelay = true

    /// The defaults above.
    public init() {}
}
