// System headers that Swift's Glibc module does not bring: epoll (Linux), for the Dispatch adapter's
// readiness loop. Nothing here is compiled on other platforms.
#ifndef C_WEBSOCKET_SYSTEM_H
#define C_WEBSOCKET_SYSTEM_H

#if defined(__linux__)
#include <sys/epoll.h>
#endif

#endif
