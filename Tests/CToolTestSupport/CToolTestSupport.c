// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#define _GNU_SOURCE
#include "CToolTestSupport.h"
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <unistd.h>

int ctooltest_open_pseudo_terminal(char *path, unsigned long size) {
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return -1;
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, path, size) != 0) {
        close(master);
        return -1;
    }
    return master;
}

int ctooltest_pipe_cloexec(int descriptors[2]) { return pipe2(descriptors, O_CLOEXEC); }

int ctooltest_spawn_setsid_flag(void) {
#ifdef POSIX_SPAWN_SETSID
    return POSIX_SPAWN_SETSID;
#else
    return 0;
#endif
}
