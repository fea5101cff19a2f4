extension Connection {
    /// The content of a Close frame.
    public struct CloseFrame: Sendable, Hashable {
        /// The status code; ``Connection/CloseCode/noStatusReceived`` (1005) for a Close frame without one.
        public var code: Connection.CloseCode
        /// The reason text after the code, valid UTF-8 (checked on receipt, RFC 6455 §5.5.1); empty when
        /// the frame carries none. At most 123 bytes, as a control frame's payload is at most 125.
        public var reason: String
        /// A Close frame's content; `reason` defaults to none.
        public init(code: Connection.CloseCode, reason: String = "") {
            self.code = code
            self.reason = reason
        }
    }
}
