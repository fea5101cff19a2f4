// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#ifndef ALLOCATION_COUNTER_H
#define ALLOCATION_COUNTER_H

/// Heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc) made by the calling thread
/// since it started. Counting per thread keeps tests that run in parallel from polluting each other.
/// Counts only on Linux with glibc; elsewhere it stays 0 and `allocation_counting_is_available`
/// returns 0.
unsigned long allocation_count_for_current_thread(void);
int allocation_counting_is_available(void);

#endif
