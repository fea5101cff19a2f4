// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "swift-websocket",
    products: [
        .library(name: "WebSocketCore", targets: ["WebSocketCore"]),
        .executable(name: "websocket", targets: ["websocket"]),
    ],
    targets: [
        // The sans-I/O engine: the Swift standard library only (no Foundation, no Dispatch).
        .target(name: "WebSocketCore"),
        .executableTarget(name: "websocket", dependencies: ["WebSocketCore"]),
        .testTarget(name: "WebSocketCoreTests", dependencies: ["WebSocketCore"]),
    ],
    swiftLanguageModes: [.v6]
)
