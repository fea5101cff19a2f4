// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// System headers that Swift's Glibc module does not bring: epoll, eventfd and malloc_trim (Linux), for the event
// loops' readiness backend, and accept4 for the socket layer (Linux only); and atomic integers.
#ifndef C_WEBSOCKET_SYSTEM_H
#define C_WEBSOCKET_SYSTEM_H

#if defined(__linux__)
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <malloc.h>

/// The CPUs the calling process may run on (its affinity mask), or -1 if it cannot be read.
int cwebsocket_available_cpus(void);

#include <sys/socket.h>
/// accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC).
int cwebsocket_accept_configured(int fd, struct sockaddr *address, socklen_t *length);
/// recv(fd, buffer, count, flags) as a plain system call, not a cancellation point (the file says why).
ssize_t cwebsocket_recv(int fd, void *buffer, size_t count, int flags);
/// send(fd, buffer, count, flags) as a plain system call, not a cancellation point.
ssize_t cwebsocket_send(int fd, const void *buffer, size_t count, int flags);
/// sendmsg(fd, message, flags) as a plain system call, not a cancellation point.
ssize_t cwebsocket_sendmsg(int fd, const struct msghdr *message, int flags);
#endif

// A flag read and written atomically (sequentially consistent), on every platform: the socket
// layer's open/closed state, read before every read and write. A lock there cost more than the
// rest of a small message's user-space work in the event loop; the stdlib has no atomics without
// the Synchronization module, which Apple platforms have only from their 2024 releases.
static inline int cwebsocket_atomic_load(const int *flag) { return __atomic_load_n(flag, __ATOMIC_SEQ_CST); }
static inline int cwebsocket_atomic_exchange(int *flag, int value) {
    return __atomic_exchange_n(flag, value, __ATOMIC_SEQ_CST);
}

// A count read and written atomically, on every platform: what other threads read of a loop's
// socket (its buffered amount) without a lock on the loop's hot path.
static inline long cwebsocket_atomic_load_long(const long *value) { return __atomic_load_n(value, __ATOMIC_SEQ_CST); }
static inline void cwebsocket_atomic_store_long(long *value, long newValue) {
    __atomic_store_n(value, newValue, __ATOMIC_SEQ_CST);
}
/// Adds `amount` to `*value` atomically and returns the sum.
static inline long cwebsocket_atomic_add_long(long *value, long amount) {
    return __atomic_add_fetch(value, amount, __ATOMIC_SEQ_CST);
}

// A counter that one thread (a loop) adds to and any thread reads: relaxed loads and stores, so
// the writer's increment compiles to a plain load, add and store (no locked instruction), and a
// reader sees a whole value, never a torn one. Unsigned arithmetic: wrapping, never undefined.
static inline void cwebsocket_counter_add(long *counter, long amount) {
    unsigned long sum = (unsigned long)__atomic_load_n(counter, __ATOMIC_RELAXED) + (unsigned long)amount;
    __atomic_store_n(counter, (long)sum, __ATOMIC_RELAXED);
}
static inline long cwebsocket_counter_read(const long *counter) { return __atomic_load_n(counter, __ATOMIC_RELAXED); }

#include <stddef.h>
/// `size` bytes of zeroed memory straight from the kernel (an anonymous private mapping), or NULL:
/// pages no one writes are never made resident, so a large table of counters, most of them never
/// counted (an HTTP status or close code per slot), costs the pages actually used.
void *cwebsocket_zeroed_pages(size_t size);
/// Gives back what `cwebsocket_zeroed_pages(size)` returned.
void cwebsocket_free_pages(void *pages, size_t size);

#endif
