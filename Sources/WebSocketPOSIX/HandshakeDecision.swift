import WebSocketCore

/// A server's answer to an opening handshake request, returned by the `handshake` callback of
/// ``BlockingWebSocketServer/serve(handshake:handler:)``.
///
/// ```swift
/// try server.serve(handshake: { request in
///     guard request.resource == "/chat" else { return .reject(status: 404, body: Array("no such endpoint\n".utf8)) }
///     return .accept(subprotocol: request.subprotocols.first { $0 == "chat.v1" })
/// }, handler: { socket in … })
/// ```
public enum HandshakeDecision: Sendable, Hashable {
    /// Accept: answer 101 with this subprotocol (one the client offered, or `nil`), these extensions
    /// (each one the client offered) and these extra headers.
    case accept(subprotocol: String? = nil, extensions: [ExtensionHeader] = [], headers: HTTPHeaders = [:])
    /// Refuse with this HTTP status (200-599, not 101), headers and body; the connection then closes.
    case reject(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = [])
}
