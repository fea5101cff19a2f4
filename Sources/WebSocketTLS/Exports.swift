// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// A session's API speaks the transport's vocabulary (TransportLayer, TLSError, WebSocketError):
// importing WebSocketTLS brings it.
@_exported import WebSocketTransport
