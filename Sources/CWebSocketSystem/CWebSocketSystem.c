// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// sched_getaffinity, CPU_COUNT and accept4 are GNU extensions: _GNU_SOURCE is defined here, before any
// header.
#define _GNU_SOURCE
#include "CWebSocketSystem.h"

#if defined(__linux__)
#include <sched.h>
#include <sys/socket.h>

int cwebsocket_available_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
    return CPU_COUNT(&set);
}
#endif

#if defined(__linux__)
int cwebsocket_accept_configured(int fd, struct sockaddr *address, socklen_t *length) {
    return accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
#endif

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>

// Straight system calls, not glibc's recv and send: those are cancellation points, and in a
// process with more than one thread each call switches asynchronous cancellation on and off around
// the system call (about 60 instructions per echoed message, `__pthread_enable_asynccancel` and
// `__pthread_disable_asynccancel` under callgrind). No thread of ours is ever cancelled.
ssize_t cwebsocket_recv(int fd, void *buffer, size_t count, int flags) {
    return syscall(SYS_recvfrom, fd, buffer, count, flags, NULL, NULL);
}

ssize_t cwebsocket_send(int fd, const void *buffer, size_t count, int flags) {
    return syscall(SYS_sendto, fd, buffer, count, flags, NULL, 0);
}

ssize_t cwebsocket_sendmsg(int fd, const struct msghdr *message, int flags) {
    return syscall(SYS_sendmsg, fd, message, flags);
}
#endif

#include <sys/mman.h>

void *cwebsocket_zeroed_pages(size_t size) {
    void *pages = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return pages == MAP_FAILED ? NULL : pages;
}

void cwebsocket_free_pages(void *pages, size_t size) {
    if (pages) munmap(pages, size);
}
