// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// The system zlib (Linux: zlib1g-dev; Apple SDKs ship it), for the WebSocketDeflate module only.
#include <zlib.h>
