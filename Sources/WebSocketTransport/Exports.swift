// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Every adapter's API speaks the core's vocabulary (Configuration, CloseCode, HandshakeRequest…):
// one import of an adapter brings it.
@_exported import WebSocketCore
