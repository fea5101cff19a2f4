// swift-tools-version:6.0
// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import PackageDescription

let package = Package(
    name: "swift-websocket",
    // Apple platforms: what the code compiled there needs. The core and every adapter take and return
    // `Duration` (timeouts, `Instant`, ping round trips), which is macOS 13 / iOS 16 / tvOS 16 /
    // watchOS 9 (visionOS 1 has it from the start); nothing else compiled there asks for more. The
    // concurrency they use (async/await, checked continuations, `withTaskCancellationHandler`,
    // `#isolation`) is older; typed throws need no new runtime, as no typed-throws function type is
    // used as a value whose metadata is needed; `nonisolated(nonsending)` function types back-deploy;
    // no Synchronization (`Mutex`/`Atomic`, macOS 15), no `Span`/`UTF8Span`/`InlineArray` (macOS 26):
    // locks are pthread mutexes, buffers are unsafe pointers. What needs more is behind `@available`
    // or `#available` with a working fallback: WebSocketAsync's loop is a `TaskExecutor` (macOS 15 /
    // iOS 18 / tvOS 18 / watchOS 11 / visionOS 2; before, async tasks run on the global executor)
    // and its server's `run` uses `withDiscardingTaskGroup` from macOS 14 / iOS 17. Linux-only
    // code is behind `#if os(Linux)` with an `#else`: the epoll readiness backend (`poll(2)`
    // elsewhere) and WebSocketTLS's OpenSSL sessions (elsewhere its contexts throw `.unavailable`).
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "WebSocketCore", targets: ["WebSocketCore"]),
        .library(name: "WebSocketDeflate", targets: ["WebSocketDeflate"]),
        .library(name: "WebSocketPOSIX", targets: ["WebSocketPOSIX"]),
        .library(name: "WebSocketAsync", targets: ["WebSocketAsync"]),
        .library(name: "WebSocketTLS", targets: ["WebSocketTLS"]),
        .library(name: "WebSocketRedis", targets: ["WebSocketRedis"]),
        .executable(name: "websocket", targets: ["websocket"]),
        .executable(name: "websocket-bench", targets: ["websocket-bench"]),
        .executable(name: "websocket-echo-server", targets: ["websocket-echo-server"]),
    ],
    targets: [
        // The sans-I/O engine: the Swift standard library only (no Foundation, no Dispatch).
        .target(name: "WebSocketCore"),
        // permessage-deflate (RFC 7692) over the zlib the OS ships; the core stays free of it.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(name: "WebSocketDeflate", dependencies: ["WebSocketCore", "CZlib"]),
        // What both adapters share: the typed socket layer over a replaceable syscall shim, the
        // transport layers' protocol (TLS, proxies) and the pipeline that runs a Connection over
        // them, and the adapters' common vocabulary (WebSocketMessage, TransportOptions, WebSocketError).
        .target(name: "WebSocketTransport", dependencies: ["WebSocketCore", "CWebSocketSystem"]),
        // TLS for wss:// as a transport layer: sans-I/O sessions over memory BIOs of the OpenSSL 3 the
        // OS ships. Linux only for now: elsewhere the module builds without OpenSSL and its contexts
        // throw `.unavailable`.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        .target(name: "WebSocketTLS", dependencies: ["WebSocketTransport",
                                                    .target(name: "COpenSSL", condition: .when(platforms: [.linux]))]),
        // System headers the Glibc module lacks (epoll, eventfd, accept4, malloc_trim), for the
        // event loops' readiness backend and the socket layer, and atomics.
        .target(name: "CWebSocketSystem"),
        // The non-blocking adapter: event loops (epoll on Linux, poll elsewhere), clients and
        // servers, handlers on the loop or on a queue, or async/await.
        .target(name: "WebSocketAsync", dependencies: ["WebSocketTransport", "CWebSocketSystem"]),
        // Blocking sockets (POSIX threads): moves bytes and time in and out of a Connection.
        .target(name: "WebSocketPOSIX", dependencies: ["WebSocketTransport"]),
        // A Redis backplane: its sans-I/O parts (the RESP2/RESP3 codec, redis:// URLs, the connection's
        // state machine, the envelope) and the connections that run them on a thread over the
        // transport's sockets and TLS layer.
        .target(name: "WebSocketRedis", dependencies: ["WebSocketCore", "WebSocketTransport"]),
        .executableTarget(name: "websocket", dependencies: ["WebSocketCore", "WebSocketDeflate", "WebSocketPOSIX", "WebSocketTLS", "WebSocketAsync",
                                                           "WebSocketRedis"]),
        .executableTarget(name: "websocket-bench", dependencies: ["WebSocketCore", "WebSocketDeflate", "WebSocketPOSIX", "WebSocketAsync", "WebSocketTLS",
                                                                  "TLSTestSupport", "EchoServerSupport", "WebSocketRedis"],
                          path: "Benchmarks/websocket-bench"),
        // The echo servers the benchmark scripts drive (Benchmarks/servers), shared by websocket-bench
        // and websocket-echo-server, which links no TLS.
        .target(name: "EchoServerSupport", dependencies: ["WebSocketCore", "WebSocketPOSIX", "WebSocketAsync"],
                path: "Benchmarks/EchoServerSupport"),
        .executableTarget(name: "websocket-echo-server", dependencies: ["EchoServerSupport"], path: "Benchmarks/echo-server"),
        // Test support: counts the calling thread's heap allocations (glibc), for allocation tests.
        .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
        // Test support for both adapters: the fault-injecting syscall shim, raw peers, descriptor counts.
        .target(name: "TransportTestSupport", dependencies: ["WebSocketTransport", "SanitizerSuppressions"],
                path: "Tests/TransportTestSupport"),
        // Test support: ThreadSanitizer's suppression of one upstream false positive (the file says which).
        .target(name: "SanitizerSuppressions", path: "Tests/SanitizerSuppressions"),
        .testTarget(name: "WebSocketCoreTests", dependencies: ["WebSocketCore", "AllocationCounter"]),
        .testTarget(name: "WebSocketTransportTests", dependencies: ["WebSocketTransport", "WebSocketCore", "TransportTestSupport"]),
        .testTarget(name: "WebSocketRedisTests", dependencies: ["WebSocketRedis", "WebSocketCore", "WebSocketTransport", "TransportTestSupport",
                                                               "WebSocketTLS", "TLSTestSupport", "WebSocketAsync", "WebSocketPOSIX"]),
        .testTarget(name: "WebSocketDeflateTests", dependencies: ["WebSocketDeflate", "WebSocketCore"]),
        // Test support: the test PKI (a CA, leaves, expired and foreign ones, client certificates),
        // made at test time with OpenSSL's C API.
        .target(name: "TLSTestSupport", dependencies: ["WebSocketTLS", .target(name: "COpenSSL", condition: .when(platforms: [.linux]))],
                path: "Tests/TLSTestSupport"),
        .testTarget(name: "WebSocketTLSTests", dependencies: ["WebSocketTLS", "WebSocketTransport", "WebSocketCore", "TLSTestSupport", "TransportTestSupport",
                                                             .target(name: "COpenSSL", condition: .when(platforms: [.linux]))]),
        .testTarget(name: "WebSocketAsyncTests", dependencies: ["WebSocketAsync", "WebSocketTransport", "WebSocketCore", "WebSocketPOSIX",
                                                               "TransportTestSupport", "WebSocketTLS", "TLSTestSupport", "AllocationCounter"]),
        .testTarget(name: "WebSocketPOSIXTests", dependencies: ["WebSocketPOSIX", "WebSocketTransport", "WebSocketCore", "WebSocketDeflate", "TransportTestSupport", "WebSocketTLS", "TLSTestSupport"]),
        // The `websocket` tool run as a process (pipes, a pseudo-terminal) against servers in the test
        // process, and its `serve` against the library's client. It finds the tool beside the test
        // binary, which `swift test` builds with every product.
        .testTarget(name: "WebSocketToolTests", dependencies: ["WebSocketPOSIX", "WebSocketTransport", "WebSocketCore", "TransportTestSupport",
                                                              "WebSocketDeflate", "TLSTestSupport", "CToolTestSupport", "AllocationCounter"]),
        // Test support: pseudo-terminals, pipe2 and POSIX_SPAWN_SETSID, which the Glibc module lacks.
        .target(name: "CToolTestSupport", path: "Tests/CToolTestSupport"),
    ],
    swiftLanguageModes: [.v6]
)
