#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore

/// Why a ``WebSocket`` or ``WebSocketServer`` operation failed.
///
/// | case | when |
/// | --- | --- |
/// | ``invalidURL(_:)``, ``secureSchemeUnsupported`` | `connect` was given a URL it cannot use |
/// | ``addressResolutionFailed(code:message:)`` | `getaddrinfo` failed |
/// | ``connectFailed(_:)``, ``connectTimedOut`` | no address accepted a TCP connection |
/// | ``handshakeFailed(_:)`` | the opening handshake failed: refused (status, headers, body), invalid, timed out |
/// | ``bufferFull(bufferedAmount:)`` | a send met the high-water mark (backpressure) |
/// | ``connection(_:)`` | the core refused a call in this state (``ConnectionError``) |
/// | ``closed(_:)`` | the connection ended without a clean closing handshake, or before a waiting send went out |
/// | ``cancelled`` | ``WebSocket/cancel()`` ended the connection before it opened |
/// | ``eventHandlerInUse``, ``fragmentDeliveryUnsupported`` | `messages` cannot be used on this socket |
/// | ``listenFailed(_:)`` | a server could not bind or listen |
public enum WebSocketError: Error, Sendable, Hashable {
    /// The URL string is not a valid `ws://` URL.
    case invalidURL(WebSocketURLError)
    /// `wss://` needs TLS, which this adapter does not provide.
    case secureSchemeUnsupported
    /// The host name did not resolve (`getaddrinfo`'s code and message).
    case addressResolutionFailed(code: Int32, message: String)
    /// Every address refused or failed the TCP connection; the error of the last attempt.
    case connectFailed(SystemError)
    /// The last address did not accept the TCP connection within ``TransportOptions/connectTimeout``.
    case connectTimedOut
    /// The opening handshake failed; ``HandshakeFailure/rejected(_:)`` carries the server's response.
    case handshakeFailed(HandshakeFailure)
    /// The output buffer reached the high-water mark (``Limits/maxBufferedOutput``); nothing was
    /// queued. Wait for ``WebSocketEvent/drained(bufferedAmount:)``, or use the async `send`, which waits.
    case bufferFull(bufferedAmount: Int)
    /// The connection refused the call in its current state (sending before the handshake or after a
    /// close, an invalid close code, a control payload over 125 bytes…).
    case connection(ConnectionError)
    /// The connection ended: without a clean closing handshake (for `messages`), or before a send
    /// that waited for buffer room could be queued.
    case closed(CloseStatus)
    /// ``WebSocket/cancel()`` was called before the connection opened.
    case cancelled
    /// `messages` was used on a socket whose events go to an event handler.
    case eventHandlerInUse
    /// `messages` yields whole messages; it cannot be used with ``Delivery/fragments``.
    case fragmentDeliveryUnsupported
    /// A server could not resolve, bind or listen on its address.
    case listenFailed(SystemError)
}

/// A failed system call's `errno`.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` value.
    public var code: Int32

    /// The error of `errno` value `code`.
    public init(_ code: Int32) { self.code = code }

    /// The system's message for the code (`strerror`), and the code.
    public var description: String { String(cString: strerror(code)) + " (errno \(code))" }
}
