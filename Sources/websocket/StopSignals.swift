// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM, taken by one thread with `sigwait` instead of killing the process, so that a
/// command can close its connections (1001) first; and SIGHUP, for `serve`, which reloads its TLS
/// certificates. `serve` waits for a second SIGINT or SIGTERM on another thread while it drains: that
/// one aborts the drain.
///
/// ``block()`` must run while the process has one thread: every thread created afterwards inherits
/// the mask, so a signal that comes early stays pending until ``wait()`` takes it.
struct StopSignals {
    private var set = sigset_t()

    /// Blocks SIGINT and SIGTERM (and SIGHUP with `hangUp`) in the calling thread (and so in every
    /// thread it creates).
    static func block(hangUp: Bool = false) -> StopSignals {
        var signals = StopSignals()
        sigemptyset(&signals.set)
        sigaddset(&signals.set, SIGINT)
        sigaddset(&signals.set, SIGTERM)
        if hangUp { sigaddset(&signals.set, SIGHUP) }
        pthread_sigmask(SIG_BLOCK, &signals.set, nil)
        return signals
    }

    /// Waits for the next of the signals blocked and returns its number.
    func wait() -> Int32 {
        var waitedFor = set
        var number: Int32 = 0
        while sigwait(&waitedFor, &number) != 0 {}
        return number
    }
}
