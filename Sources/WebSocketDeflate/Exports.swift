// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// PerMessageDeflate is used with the core's Configuration and Connection: one import brings them.
@_exported import WebSocketCore
