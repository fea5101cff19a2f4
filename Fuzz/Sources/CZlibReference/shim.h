// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// The system zlib, for the harness's reference decoder (Sources/FuzzSupport/ReferenceInflater.swift):
// the deflate target checks what the library decodes against plain zlib calls made here.
#include <zlib.h>
