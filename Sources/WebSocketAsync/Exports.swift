// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// One import brings everything this module's API uses: the core's types and the transport's
// (options, messages, events, errors).
@_exported import WebSocketTransport
