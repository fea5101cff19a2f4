// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a child process could not be spawned.
package struct SpawnFailure: Error, CustomStringConvertible {
    package let description: String
}

/// Spawns `path` with `arguments` (argv[0] is the path) and `environment`; `configure` adds file
/// actions, `flags` attribute flags. The child gets default dispositions for the signals the tests
/// use (a test process ignores SIGPIPE and blocks others, which exec would otherwise pass on: a
/// server the test stops with SIGTERM must heed it) and an empty mask.
package func spawnChild(_ path: String, _ arguments: [String], environment: [String], flags: Int32 = 0,
                        fileActions configure: (inout posix_spawn_file_actions_t) -> Void) throws(SpawnFailure) -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    configure(&actions)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for number in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD] { sigaddset(&defaults, number) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    posix_spawnattr_setflags(&attributes, Int16(flags | Int32(POSIX_SPAWN_SETSIGDEF) | Int32(POSIX_SPAWN_SETSIGMASK)))

    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup($0) } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    guard result == 0 else { throw SpawnFailure(description: "posix_spawn \(path): \(String(cString: strerror(result)))") }
    return pid
}

/// This process's environment, as `KEY=VALUE` strings.
package var currentEnvironment: [String] {
    var entries: [String] = []
    var cursor = environ
    while let entry = cursor.pointee {
        entries.append(String(cString: entry))
        cursor += 1
    }
    return entries
}
