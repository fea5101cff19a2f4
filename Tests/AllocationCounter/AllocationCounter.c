// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Counts heap allocations by interposing malloc and friends in the test executable: the dynamic
// linker resolves every library's malloc to these, which forward to glibc's own implementation.
#include "AllocationCounter.h"
#include <stddef.h>
#include <errno.h>
#include <stdlib.h>

// Sanitizers interpose malloc themselves: replacing it again under them crashes the test bundle, so
// counting is off there (and the allocation tests say they are disabled).
#if defined(__has_feature)
#  if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#    define ALLOCATION_COUNTER_UNDER_SANITIZER 1
#  endif
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(ALLOCATION_COUNTER_UNDER_SANITIZER)

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static __thread unsigned long allocations = 0;

void *malloc(size_t size) {
    allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    return __libc_realloc(pointer, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    allocations++;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

unsigned long allocation_count_for_current_thread(void) { return allocations; }
int allocation_counting_is_available(void) { return 1; }
#else
unsigned long allocation_count_for_current_thread(void) { return 0; }
int allocation_counting_is_available(void) { return 0; }
#endif
