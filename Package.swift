// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "swift-websocket",
    products: [
        .library(name: "WebSocketCore", targets: ["WebSocketCore"]),
        .library(name: "WebSocketDeflate", targets: ["WebSocketDeflate"]),
        .library(name: "WebSocketDispatch", targets: ["WebSocketDispatch"]),
        .library(name: "WebSocketPOSIX", targets: ["WebSocketPOSIX"]),
        .library(name: "WebSocketEventLoop", targets: ["WebSocketEventLoop"]),
        .library(name: "WebSocketTLS", targets: ["WebSocketTLS"]),
        .executable(name: "websocket", targets: ["websocket"]),
        .executable(name: "websocket-bench", targets: ["websocket-bench"]),
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
        // readiness loops and the socket layer.
        .target(name: "CWebSocketSystem"),
        // The Dispatch adapter: non-blocking sockets with readiness from epoll (Linux) or
        // DispatchSources, events on your queue or an async face.
        .target(name: "WebSocketDispatch", dependencies: ["WebSocketTransport", "CWebSocketSystem"]),
        // The server for many connections: one epoll loop per CPU, each owning its connections, with
        // handlers on the loop or async tasks whose executor is the loop (Linux for now).
        .target(name: "WebSocketEventLoop", dependencies: ["WebSocketTransport", "CWebSocketSystem"]),
        // Blocking sockets (POSIX threads): moves bytes and time in and out of a Connection.
        .target(name: "WebSocketPOSIX", dependencies: ["WebSocketTransport"]),
        .executableTarget(name: "websocket", dependencies: ["WebSocketCore", "WebSocketDeflate", "WebSocketPOSIX", "WebSocketTLS", "WebSocketEventLoop"]),
        .executableTarget(name: "websocket-bench", dependencies: ["WebSocketCore", "WebSocketDeflate", "WebSocketPOSIX", "WebSocketDispatch", "WebSocketTLS",
                                                                  "WebSocketEventLoop", "TLSTestSupport"],
                          path: "Benchmarks/websocket-bench"),
        // Test support: counts the calling thread's heap allocations (glibc), for allocation tests.
        .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
        // Test support for both adapters: the fault-injecting syscall shim, raw peers, descriptor counts.
        .target(name: "TransportTestSupport", dependencies: ["WebSocketTransport"], path: "Tests/TransportTestSupport"),
        .testTarget(name: "WebSocketCoreTests", dependencies: ["WebSocketCore", "AllocationCounter"]),
        .testTarget(name: "WebSocketDispatchTests", dependencies: ["WebSocketDispatch", "WebSocketTransport", "WebSocketCore", "TransportTestSupport", "WebSocketTLS", "TLSTestSupport"]),
        .testTarget(name: "WebSocketTransportTests", dependencies: ["WebSocketTransport", "WebSocketCore", "TransportTestSupport"]),
        .testTarget(name: "WebSocketDeflateTests", dependencies: ["WebSocketDeflate", "WebSocketCore"]),
        // Test support: the test PKI (a CA, leaves, expired and foreign ones, client certificates),
        // made at test time with OpenSSL's C API.
        .target(name: "TLSTestSupport", dependencies: ["WebSocketTLS", .target(name: "COpenSSL", condition: .when(platforms: [.linux]))],
                path: "Tests/TLSTestSupport"),
        .testTarget(name: "WebSocketTLSTests", dependencies: ["WebSocketTLS", "WebSocketTransport", "WebSocketCore", "TLSTestSupport",
                                                             .target(name: "COpenSSL", condition: .when(platforms: [.linux]))]),
        .testTarget(name: "WebSocketEventLoopTests", dependencies: ["WebSocketEventLoop", "WebSocketTransport", "WebSocketCore", "WebSocketPOSIX", "TransportTestSupport", "WebSocketTLS", "TLSTestSupport"]),
        .testTarget(name: "WebSocketPOSIXTests", dependencies: ["WebSocketPOSIX", "WebSocketTransport", "WebSocketCore", "WebSocketDeflate", "TransportTestSupport", "WebSocketTLS", "TLSTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
