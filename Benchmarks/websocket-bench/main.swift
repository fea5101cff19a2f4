// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import EchoServerSupport
import WebSocketRedis
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
// websocket-bench: named workloads, each measured against a baseline in the same process.
//
//   swift run -c release websocket-bench [WORKLOAD ...]     all workloads, or the named ones
//   swift run -c release websocket-bench --list             the workload names
//   swift run -c release websocket-bench WORKLOAD --frames N [--wire-frames M]
//       parse exactly N frames of one parse workload (or send and take N frames of a serialize
//       workload), once, with no baseline and no warm-up, out of a wire built for M frames (default
//       N), for instruction counting (Benchmarks/callgrind.sh)
//   websocket-bench client-echo --url ws://HOST:PORT/PATH --conns N --size BYTES --seconds S
//       [--mode pingpong|pipeline] [--depth D] [--face loop|queue|async] [--text]
//       a load generator on WebSocketAsync's client against an echo server (ClientEcho.swift), for
//       Benchmarks/servers/client-compare.sh
//   websocket-bench serve-echo KIND [--port P]
//       one of our servers as an echo server process until SIGTERM (EchoServers.swift), for
//       Benchmarks/servers; `serve-echo --list` prints the kinds
let arguments = Array(CommandLine.arguments.dropFirst())

// Before the workloads are made: an echo server process holds none of their fixtures.
if arguments.first == "serve-echo" {
    var rest = Array(arguments.dropFirst())
    // --redis URL (loop-handler): the server's topic shared through Redis (redis-broadcast.sh), the
    // backplane's state on standard error.
    var redis: RedisEndpoint? = nil
    if let at = rest.firstIndex(of: "--redis"), at + 1 < rest.count {
        do throws(RedisError) {
            redis = try RedisEndpoint(parsing: rest[at + 1])
        } catch {
            fatalError("--redis: \(error)")
        }
        rest.removeSubrange(at...(at + 1))
    }
    EchoServers.main(rest) { started in
        guard let redis else { return }
        guard let server = started.server else { fatalError("--redis needs the loop-handler kind") }
        server.attach(RedisBackplane(endpoint: redis) { event in
            let line = Array("redis: \(event)\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        })
    }
}
if arguments.first == "client-echo" {
    ClientEcho.main(Array(arguments.dropFirst()))
}

let entries = Workloads.entries

if arguments.first == "--list" {
    for entry in entries { print(entry.name) }
} else if let index = arguments.firstIndex(of: "--frames") {
    guard index + 1 < arguments.count, let n = Int(arguments[index + 1]), n >= 0,
          let name = arguments.first, let entry = entries.first(where: { $0.name == name }),
          let frames = entry.make().frames else {
        print("usage: websocket-bench PARSE-OR-SERIALIZE-WORKLOAD --frames N")
        exit(2)
    }
    var m = n
    if let w = arguments.firstIndex(of: "--wire-frames"), w + 1 < arguments.count, let value = Int(arguments[w + 1]) {
        m = value
    }
    frames(n, m)
} else {
    let selected = arguments.isEmpty ? entries : entries.filter { arguments.contains($0.name) }
    if selected.isEmpty {
        print("unknown workload; try --list")
        exit(2)
    }
    for entry in selected { entry.make().run() }
}
