// PerMessageDeflate is used with the core's Configuration and Connection: one import brings them.
@_exported import WebSocketCore
