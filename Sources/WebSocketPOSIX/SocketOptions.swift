import WebSocketCore

/// How a ``BlockingWebSocket`` uses its socket. Protocol timers (opening handshake, keepalive,
/// closing handshake) are not here: they are the connection's ``Timeouts``, in ``Configuration``.
public struct SocketOptions: Sendable, Hashable {
    /// (Client) How long connecting may take, over every address the host resolves to. Default 10
    /// seconds; `nil` waits as long as the kernel does.
    public var connectTimeout: Duration? = .seconds(10)
    /// How long a write may wait for the peer to accept a byte. Default 30 seconds; `nil` waits
    /// forever. A peer that reads, however slowly, never trips it; one that stops reading makes the
    /// send fail with ``BlockingWebSocketError/timedOut(_:)`` (`.write`) and ends the connection
    /// (1006), since a frame may be half written.
    public var writeTimeout: Duration? = .seconds(30)
    /// How long ``BlockingWebSocket/receive()`` waits for a message. Default `nil`: until one comes or
    /// the connection ends (the connection's own timers still run while it waits).
    public var receiveTimeout: Duration? = nil
    /// After the connection says to close the transport: how long to keep reading (and discarding)
    /// until the peer closes too, before the descriptor is closed. Closing a socket with unread
    /// bytes makes the kernel send a reset, which can destroy the Close frame just written; a
    /// half-close followed by this wait lets it arrive. Default 1 second.
    public var lingerTimeout: Duration = .seconds(1)
    /// Set `TCP_NODELAY`, so that small frames go out at once instead of waiting for Nagle's
    /// algorithm. Default `true`.
    public var noDelay = true
    /// Also return pings and pongs from ``BlockingWebSocket/receive()`` (as ``Message/ping(_:)`` and
    /// ``Message/pong(_:)``). Default `false`: pings are answered automatically either way.
    public var receivesControlFrames = false
    /// The size of each read from the socket. Default 64 KiB; at least 512 bytes are used.
    public var readBufferSize = 64 << 10

    /// The defaults above.
    public init() {}
}
