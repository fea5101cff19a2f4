// sched_getaffinity and CPU_COUNT are GNU extensions: defined here, before any header.
#define _GNU_SOURCE
#include "CWebSocketSystem.h"

#if defined(__linux__)
#include <sched.h>

int cwebsocket_available_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
    return CPU_COUNT(&set);
}
#endif
