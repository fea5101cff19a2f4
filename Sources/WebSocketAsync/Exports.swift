// One import brings everything this module's API uses: the core's types and the transport's
// (options, messages, events, errors).
@_exported import WebSocketTransport
