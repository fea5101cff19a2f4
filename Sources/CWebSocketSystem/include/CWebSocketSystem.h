// System headers that Swift's Glibc module does not bring: epoll, eventfd and malloc_trim (Linux), for the readiness
// loops of the Dispatch and event-loop adapters, and accept4 for the socket layer.
// Nothing here is compiled on other platforms.
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
#endif

#endif
