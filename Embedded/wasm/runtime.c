// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// The few C functions an Embedded Swift program for wasm32-unknown-none-wasm links against, for
// running Embedded/Transcript.swift under a WASI runtime (Scripts/embedded-check.sh --wasm): the
// toolchain ships no C library for that target. Output goes through WASI's fd_write, the exit status
// through proc_exit; memory comes from a bump allocator over memory.grow (the transcript is short
// and frees nothing back to the system, so nothing is reused). Built with -fno-builtin, so that the
// loops below are not turned back into calls to themselves.

#include <stddef.h>
#include <stdint.h>

__attribute__((import_module("wasi_snapshot_preview1"), import_name("fd_write")))
int32_t wasi_fd_write(int32_t fd, const void *iovs, int32_t iovs_len, int32_t *written);
__attribute__((import_module("wasi_snapshot_preview1"), import_name("proc_exit")))
_Noreturn void wasi_proc_exit(int32_t code);
__attribute__((import_module("wasi_snapshot_preview1"), import_name("random_get")))
int32_t wasi_random_get(void *buffer, int32_t length);

// Output: a line buffer, written whole at each newline (one fd_write per line, not per byte).
static char line[4096];
static size_t lineLength;

static void flushLine(void) {
    struct { const void *base; size_t length; } iov = { line, lineLength };
    int32_t written = 0;
    if (lineLength > 0) wasi_fd_write(1, &iov, 1, &written);
    lineLength = 0;
}

int putchar(int c) {
    line[lineLength++] = (char)c;
    if (c == '\n' || lineLength == sizeof line) flushLine();
    return c;
}

// Memory: bump allocation in pages taken from memory.grow.
extern unsigned char __heap_base;
static uintptr_t heapNext = (uintptr_t)&__heap_base;
static uintptr_t heapEnd = 0;

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (heapEnd == 0) heapEnd = __builtin_wasm_memory_size(0) * 65536;
    if (alignment < sizeof(void *)) alignment = sizeof(void *);
    uintptr_t start = (heapNext + alignment - 1) & ~(uintptr_t)(alignment - 1);
    uintptr_t end = start + size;
    if (end < start) return 12;  // ENOMEM
    while (end > heapEnd) {
        if (__builtin_wasm_memory_grow(0, 16) == (size_t)-1) return 12;
        heapEnd += 16 * 65536;
    }
    heapNext = end;
    *result = (void *)start;
    return 0;
}

void *malloc(size_t size) {
    void *result = 0;
    return posix_memalign(&result, 16, size) == 0 ? result : 0;
}

void free(void *pointer) { (void)pointer; }

void *memcpy(void *destination, const void *source, size_t count) {
    unsigned char *d = destination;
    const unsigned char *s = source;
    while (count--) *d++ = *s++;
    return destination;
}

void *memmove(void *destination, const void *source, size_t count) {
    unsigned char *d = destination;
    const unsigned char *s = source;
    if (d < s) {
        while (count--) *d++ = *s++;
    } else {
        while (count--) d[count] = s[count];
    }
    return destination;
}

void *memset(void *destination, int value, size_t count) {
    unsigned char *d = destination;
    while (count--) *d++ = (unsigned char)value;
    return destination;
}

int memcmp(const void *a, const void *b, size_t count) {
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < count; i++) {
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    }
    return 0;
}

void arc4random_buf(void *buffer, size_t count) { wasi_random_get(buffer, (int32_t)count); }

// Stack protection (the Swift compiler emits checks): a fixed guard; a smashed stack ends the run.
uintptr_t __stack_chk_guard = 0x5ca1ab1e;
_Noreturn void __stack_chk_fail(void) {
    flushLine();
    wasi_proc_exit(134);
}

// 128-bit multiplication, which the compiler calls for some 64-bit overflow checks.
typedef struct { uint64_t low, high; } U128;
U128 __multi3(uint64_t aLow, uint64_t aHigh, uint64_t bLow, uint64_t bHigh) {
    uint64_t a0 = aLow & 0xffffffffu, a1 = aLow >> 32, b0 = bLow & 0xffffffffu, b1 = bLow >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t middle = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    U128 result;
    result.low = (p00 & 0xffffffffu) | (middle << 32);
    result.high = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32) + aLow * bHigh + aHigh * bLow;
    return result;
}

// The program's main: for wasm32, compilers name a main that takes arguments this way.
int __main_argc_argv(int argc, char **argv);

// The entry point WASI runs: the program's main, then its status.
void _start(void) {
    int status = __main_argc_argv(0, 0);
    flushLine();
    wasi_proc_exit(status);
}
