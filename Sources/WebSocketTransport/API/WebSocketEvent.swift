/// What a socket of the Dispatch or the event-loop adapter reports to its event handler: on the queue
/// you chose (Dispatch), or on the connection's loop (event loop).
///
/// Every socket reports, in order: ``open(_:)`` once the opening handshake succeeds, then messages,
/// pings, pongs and ``closeReceived(_:)`` as they arrive, ``drained(bufferedAmount:)`` whenever the
/// output buffer falls back to the low-water mark, and exactly one last event: ``closed(_:)`` if the
/// connection opened, ``failed(_:)`` if it never did. The last event comes after the socket is closed.
public enum WebSocketEvent: Sendable, Hashable {
    /// The opening handshake succeeded: the subprotocol and extensions agreed, the peer's headers.
    case open(Connection.HandshakeResult)
    /// A whole text message (``WebSocketCore/Connection/Delivery/messages``, the default).
    case text(String)
    /// A whole binary message (``WebSocketCore/Connection/Delivery/messages``, the default).
    case binary([UInt8])
    /// A piece of a message, as it arrived (``WebSocketCore/Connection/Delivery/fragments``).
    case fragment(Connection.Fragment)
    /// A ping; the pong has been sent already, unless automatic pongs are off.
    case ping([UInt8])
    /// A pong (the answer to a ping sent, or an unsolicited one).
    case pong([UInt8])
    /// The peer sent a Close frame; the reply has been queued unless this answers ours.
    case closeReceived(Connection.CloseFrame)
    /// The buffered output fell to ``TransportOptions/lowWaterMark`` or below after a send was refused
    /// with ``WebSocketError/bufferFull(bufferedAmount:)`` or the buffer reached the high-water mark:
    /// send again.
    case drained(bufferedAmount: Int)
    /// The connection ended after it had opened, and the socket is closed. Check
    /// ``WebSocketCore/Connection/CloseStatus/wasClean`` and ``WebSocketCore/Connection/CloseStatus/failure``: 1006 means the connection was lost.
    case closed(Connection.CloseStatus)
    /// The connection never opened (resolution, TCP connect, TLS, opening handshake), and the socket
    /// is closed.
    case failed(WebSocketError)
}

extension WebSocketEvent {
    /// The payload bytes the event holds, counted against ``TransportOptions/maxUndeliveredBytes``.
    package var payloadSize: Int {
        switch self {
        case .text(let text): return text.utf8.count
        case .binary(let bytes), .ping(let bytes), .pong(let bytes): return bytes.count
        case .fragment(let fragment): return fragment.bytes.count
        case .open, .closeReceived, .drained, .closed, .failed: return 0
        }
    }

    /// The message of the async face that the event carries, if any.
    package func message(receivesControlFrames: Bool) -> WebSocketMessage? {
        switch self {
        case .text(let text): return .text(text)
        case .binary(let bytes): return .binary(bytes)
        case .fragment(let fragment): return .fragment(fragment)
        case .ping(let payload) where receivesControlFrames: return .ping(payload)
        case .pong(let payload) where receivesControlFrames: return .pong(payload)
        case .closeReceived(let frame) where receivesControlFrames: return .close(frame)
        case .ping, .pong, .closeReceived, .open, .drained, .closed, .failed: return nil
        }
    }
}
