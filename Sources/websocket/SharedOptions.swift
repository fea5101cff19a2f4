import WebSocketCore
import WebSocketDeflate

/// The options that `connect` and `serve` share, spelled the same in both: limits, timers,
/// permessage-deflate, subprotocols.
enum SharedOptions {
    static let flags: Set<String> = ["--deflate"]
    static let options: Set<String> = [
        "--protocol", "--max-message-size", "--max-frame-size", "--max-fragments",
        "--handshake-timeout", "--close-timeout", "--ping-interval", "--ping-timeout",
    ]

    /// The connection's configuration: the library's defaults, with what the options change.
    static func configuration(_ parsed: Arguments) throws(UsageError) -> Connection.Configuration {
        var configuration = Connection.Configuration()
        if let size = try parsed.size("--max-message-size") { configuration.limits.maxMessageSize = size }
        if let size = try parsed.size("--max-frame-size") { configuration.limits.maxFrameSize = size }
        if let count = try parsed.count("--max-fragments", minimum: 1) { configuration.limits.maxFragmentsPerMessage = count }
        if parsed.has("--deflate") { configuration.extensions = [PerMessageDeflate()] }
        if let timeout = try parsed.seconds("--handshake-timeout") { configuration.timeouts.handshake = timeout > .zero ? timeout : nil }
        if let timeout = try parsed.seconds("--close-timeout") { configuration.timeouts.close = timeout > .zero ? timeout : nil }
        if let interval = try parsed.seconds("--ping-interval") {
            guard interval > .zero else { throw UsageError(message: "--ping-interval: expected more than 0 seconds") }
            configuration.timeouts.keepaliveInterval = interval
        }
        if let timeout = try parsed.seconds("--ping-timeout") {
            guard parsed.value("--ping-interval") != nil else { throw UsageError(message: "--ping-timeout needs --ping-interval") }
            configuration.timeouts.keepaliveTimeout = timeout > .zero ? timeout : nil
        }
        return configuration
    }

    /// `--protocol` (or `--subprotocol`) values, in the order given: for a client its offer in order of
    /// preference, for a server the ones it speaks.
    static func subprotocols(_ parsed: Arguments) throws(UsageError) -> [String] {
        let names = parsed.values("--protocol")
        // RFC 6455 §4.1: each name is an HTTP token.
        for name in names where !HTTPTokens.isToken(name) {
            throw UsageError(message: "--protocol: \(String(reflecting: name)) is not a valid subprotocol name (an HTTP token)")
        }
        return names
    }
}
