import WebSocketCore

/// What ``BlockingWebSocket/receive()`` returns.
public enum Message: Sendable, Hashable {
    /// A whole text message.
    case text(String)
    /// A whole binary message.
    case binary([UInt8])
    /// A piece of a message, when ``Configuration/delivery`` is ``Delivery/fragments``.
    case fragment(Fragment)
    /// A ping and its payload, when ``SocketOptions/receivesControlFrames`` is on. It has already
    /// been answered, unless ``Configuration/respondsToPingsAutomatically`` is off.
    case ping([UInt8])
    /// A pong and its payload, when ``SocketOptions/receivesControlFrames`` is on.
    case pong([UInt8])

    /// The message an event carries, if it is one the caller asked for.
    init?(_ event: Event, receivesControlFrames: Bool) {
        switch event {
        case .text(let text): self = .text(text)
        case .binary(let bytes): self = .binary(bytes)
        case .fragment(let fragment): self = .fragment(fragment)
        case .ping(let payload) where receivesControlFrames: self = .ping(payload)
        case .pong(let payload) where receivesControlFrames: self = .pong(payload)
        case .ping, .pong, .handshakeRequest, .handshakeCompleted, .handshakeFailed, .closeReceived,
             .protocolViolation, .closed:
            return nil
        }
    }
}
