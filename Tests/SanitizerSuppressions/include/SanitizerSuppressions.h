// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#ifndef SANITIZER_SUPPRESSIONS_H
#define SANITIZER_SUPPRESSIONS_H

/// ThreadSanitizer's suppressions for the test binary (see SanitizerSuppressions.c).
const char *__tsan_default_suppressions(void);

#endif
