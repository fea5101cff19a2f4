// The shared vocabulary (WebSocketMessage, WebSocketEvent, TransportOptions, WebSocketError,
// SocketAddress) and the core's (Configuration, CloseCode…): one import of the adapter brings them.
@_exported import WebSocketTransport
