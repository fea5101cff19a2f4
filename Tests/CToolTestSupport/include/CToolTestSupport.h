// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// What the tool tests need from the C library that Swift's Glibc module does not bring (it is
// built without _GNU_SOURCE): pseudo-terminals (posix_openpt, grantpt, unlockpt, ptsname_r),
// pipe2 with O_CLOEXEC, and posix_spawn's POSIX_SPAWN_SETSID.
#ifndef C_TOOL_TEST_SUPPORT_H
#define C_TOOL_TEST_SUPPORT_H

/// A new pseudo-terminal: its master descriptor (close-on-exec, not the caller's controlling
/// terminal), unlocked, with the slave's path in `path`; -1 and errno on failure.
int ctooltest_open_pseudo_terminal(char *path, unsigned long size);

/// pipe2(descriptors, O_CLOEXEC).
int ctooltest_pipe_cloexec(int descriptors[2]);

/// POSIX_SPAWN_SETSID, or 0 where the C library has no such flag.
int ctooltest_spawn_setsid_flag(void);

#endif
