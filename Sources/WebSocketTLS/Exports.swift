// A session's API speaks the transport's vocabulary (TransportLayer, TLSError, WebSocketError):
// importing WebSocketTLS brings it.
@_exported import WebSocketTransport
