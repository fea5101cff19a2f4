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
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

// Straight system calls, not glibc's recv and send: those are cancellation points, and in a
// process with more than one thread each call switches asynchronous cancellation on and off around
// the system call (about 60 instructions per echoed message, `__pthread_enable_asynccancel` and
// `__pthread_disable_asynccancel` under callgrind). No thread of ours is ever cancelled.
//
// On x86-64 and AArch64 the `syscall` instruction is issued here, not through glibc's `syscall()`,
// which is a call more and shuffles all seven arguments for its variadic form (about 12
// instructions per call, two calls per echoed message). The kernel returns -errno; it is put in
// `errno` as libc would, since callers read the error from there.
#if defined(__x86_64__)
static inline long cwebsocket_raw_syscall6(long number, long a1, long a2, long a3, long a4, long a5, long a6) {
    register long r10 __asm__("r10") = a4;
    register long r8 __asm__("r8") = a5;
    register long r9 __asm__("r9") = a6;
    long result;
    __asm__ volatile("syscall"
                     : "=a"(result)
                     : "a"(number), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return result;
}
#define CWEBSOCKET_RAW_SYSCALLS 1
#elif defined(__aarch64__)
static inline long cwebsocket_raw_syscall6(long number, long a1, long a2, long a3, long a4, long a5, long a6) {
    register long x8 __asm__("x8") = number;
    register long x0 __asm__("x0") = a1;
    register long x1 __asm__("x1") = a2;
    register long x2 __asm__("x2") = a3;
    register long x3 __asm__("x3") = a4;
    register long x4 __asm__("x4") = a5;
    register long x5 __asm__("x5") = a6;
    __asm__ volatile("svc 0"
                     : "+r"(x0)
                     : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                     : "memory", "cc");
    return x0;
}
#define CWEBSOCKET_RAW_SYSCALLS 1
#endif

#if defined(CWEBSOCKET_RAW_SYSCALLS)
/// A system call's raw result as libc reports it: -1 with `errno` set for -4095...-1, else the result.
static inline ssize_t cwebsocket_syscall_result(long result) {
    if ((unsigned long)result > (unsigned long)-4096L) {
        errno = (int)-result;
        return -1;
    }
    return result;
}

ssize_t cwebsocket_recv(int fd, void *buffer, size_t count, int flags) {
    return cwebsocket_syscall_result(cwebsocket_raw_syscall6(SYS_recvfrom, fd, (long)buffer, (long)count, flags, 0, 0));
}

ssize_t cwebsocket_send(int fd, const void *buffer, size_t count, int flags) {
    return cwebsocket_syscall_result(cwebsocket_raw_syscall6(SYS_sendto, fd, (long)buffer, (long)count, flags, 0, 0));
}

ssize_t cwebsocket_sendmsg(int fd, const struct msghdr *message, int flags) {
    return cwebsocket_syscall_result(cwebsocket_raw_syscall6(SYS_sendmsg, fd, (long)message, flags, 0, 0, 0));
}
#else
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
#endif

#include <sys/mman.h>

void *cwebsocket_zeroed_pages(size_t size) {
    void *pages = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return pages == MAP_FAILED ? NULL : pages;
}

void cwebsocket_free_pages(void *pages, size_t size) {
    if (pages) munmap(pages, size);
}
