/// A frame opcode (RFC 6455 §5.2). Only the six defined opcodes are representable: any other value on
/// the wire is a protocol error.
public enum Opcode: UInt8, Sendable, Hashable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// RFC 6455 §5.5: opcodes with the most significant bit set are control frames.
    @inline(__always)
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// The kind of a data message.
public enum MessageKind: Sendable, Hashable {
    case text
    case binary

    var opcode: Opcode { self == .text ? .text : .binary }
}
