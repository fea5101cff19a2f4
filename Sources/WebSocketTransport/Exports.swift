// Every adapter's API speaks the core's vocabulary (Configuration, CloseCode, HandshakeRequest…):
// one import of an adapter brings it.
@_exported import WebSocketCore
