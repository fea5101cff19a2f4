// swift-tools-version:6.0
// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// The libFuzzer targets of swift-websocket: a package of its own, so that the root package's plain
// `swift build` and `swift test` never see an executable without `main`. Build and run them with
// `Fuzz/run.sh` (see Fuzz/README.md); by hand:
//
//     swift build --package-path Fuzz -c release --sanitize=fuzzer --sanitize=address
import PackageDescription

// SwiftPM names a path dependency after its directory (the clone's name: swift-websocket, main, …),
// so the identity of the root package is computed here rather than spelled out.
let rootIdentity = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "swift-websocket")
    .lowercased()

/// The fuzz targets, one per attack surface. Keep in step with `TARGETS` in run.sh.
let fuzzTargets = [
    "frame-server",       // the frame parser, server role (masked input)
    "frame-client",       // the frame parser, client role
    "http-request",       // the HTTP request parser and the server handshake
    "http-response",      // the HTTP response parser, the client handshake, the refusal body reader
    "connection-server",  // a whole server Connection after the handshake: bytes, sends, pings, closes, time
    "connection-client",  // the same, client role
    "deflate",            // permessage-deflate: arbitrary compressed frames, and round trips, against a reference zlib decoder
    "tls-server",         // a TLS server session: arbitrary bytes, or a real client's altered on the way
    "tls-client",         // a TLS client session: arbitrary bytes, or a real server's altered on the way
    "proxy-response",     // the proxy tunnels' reply parsers: HTTP CONNECT and SOCKS5, at any split
    "proxy-protocol",     // the PROXY protocol header (v1, v2) a load balancer sends, and Forwarded fields
    "resp",               // the Redis protocol (RESP2, RESP3) decoder and encoder, the Pub/Sub classifier
]

let package = Package(
    name: "swift-websocket-fuzz",
    dependencies: [.package(path: "..")],
    targets: [
        // The harness shared by every target: input decoding, the fuzz configurations, an independent
        // frame decoder, and the invariant checks.
        // It is compiled with AddressSanitizer and edge counters, but without comparison tracing: run.sh's
        // -Xswiftc -sanitize=fuzzer,address comes after these flags (swiftc keeps the last -sanitize=, so
        // the harness gets libFuzzer's instrumentation like the library), but an explicit
        // -sanitize-coverage= replaces the set -sanitize=fuzzer implies (edges, trace-cmp, indirect calls,
        // stack depth). A traced comparison is a call into libFuzzer: the harness's checks after every
        // step took a sixth of the connection targets' time for next to no features (the library's
        // comparisons stay traced).
        .target(name: "FuzzSupport", dependencies: [.product(name: "WebSocketCore", package: rootIdentity),
                                                    .product(name: "WebSocketDeflate", package: rootIdentity),
                                                    .product(name: "WebSocketTLS", package: rootIdentity),
                                                    .product(name: "WebSocketRedis", package: rootIdentity),
                                                    "CZlibReference", "CFuzzOpenSSL"],
                swiftSettings: [.unsafeFlags(["-sanitize=address", "-sanitize-coverage=edge,inline-8bit-counters,pc-table"])]),
        // The system zlib for the harness's reference decoder (the library's own zlib module is not
        // a product of the root package).
        .systemLibrary(name: "CZlibReference", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // The system OpenSSL for the TLS targets' certificates, made at start-up (the library's own
        // OpenSSL module is not a product of the root package either).
        .systemLibrary(name: "CFuzzOpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
    ] + fuzzTargets.map { name in
        .executableTarget(name: name, dependencies: ["FuzzSupport"],
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])])
    },
    swiftLanguageModes: [.v6]
)
