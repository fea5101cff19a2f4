import WebSocketTransport

/// What a ``WebSocket`` reports to its event handler, on the queue you chose.
///
/// Every socket reports, in order: ``open(_:)`` once the opening handshake succeeds, then messages,
/// pings, pongs and ``closeReceived(_:)`` as they arrive, ``drained(bufferedAmount:)`` whenever the
/// output buffer falls back to the low-water mark, and exactly one last event: ``closed(_:)`` if the
/// connection opened, ``failed(_:)`` if it never did. The last event comes after the socket is closed.
public enum WebSocketEvent: Sendable, Hashable {
    /// The opening handshake succeeded: the subprotocol and extensions agreed, the peer's headers.
    case open(HandshakeResult)
    /// A whole text message (``Delivery/messages``, the default).
    case text(String)
    /// A whole binary message (``Delivery/messages``, the default).
    case binary([UInt8])
    /// A piece of a message, as it arrived (``Delivery/fragments``).
    case fragment(Fragment)
    /// A ping; the pong has been sent already, unless automatic pongs are off.
    case ping([UInt8])
    /// A pong (the answer to ``WebSocket/sendPing(_:)``, or an unsolicited one).
    case pong([UInt8])
    /// The peer sent a Close frame; the reply has been queued unless this answers ours.
    case closeReceived(CloseFrame)
    /// ``WebSocket/bufferedAmount`` fell to ``TransportOptions/lowWaterMark`` or below after a send was
    /// refused with ``WebSocketError/bufferFull(bufferedAmount:)`` or the buffer reached the high-water
    /// mark: send again.
    case drained(bufferedAmount: Int)
    /// The connection ended after it had opened, and the socket is closed. Check
    /// ``CloseStatus/wasClean`` and ``CloseStatus/failure``: 1006 means the connection was lost.
    case closed(CloseStatus)
    /// The connection never opened (resolution, TCP connect, TLS, opening handshake), and the socket
    /// is closed.
    case failed(WebSocketError)
}
