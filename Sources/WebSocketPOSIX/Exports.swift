// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// The shared vocabulary (WebSocketMessage, TransportOptions, WebSocketError, SocketAddress) and the
// core's (Configuration, CloseCode…): one import of the adapter brings them.
@_exported import WebSocketTransport
