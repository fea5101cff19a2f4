// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing

/// Where the built `websocket` tool is: beside the test binary, in the build directory that
/// `swift build` and `swift test` fill (the test target depends on the tool, so `swift test` on a
/// clean checkout builds it first).
enum ToolLocation {
    /// The directory of the running test binary, from `/proc/self/exe`.
    static var buildDirectory: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        // On Linux the test binary is `<build>/<package>PackageTests.xctest`, an executable file in
        // the build directory itself.
        return String(path[..<slash])
    }

    /// The tool's path; a recorded failure (never a skip) and an error when it is not there, so that
    /// a build that lost the tool cannot pass these tests silently.
    static func tool(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        guard let directory = buildDirectory else {
            Issue.record("cannot read /proc/self/exe to find the build directory", sourceLocation: sourceLocation)
            throw ToolTestError("no build directory")
        }
        let path = directory + "/websocket"
        guard access(path, X_OK) == 0 else {
            Issue.record("the websocket tool is not at \(path): build it with `swift build` (the tests run the built tool)",
                         sourceLocation: sourceLocation)
            throw ToolTestError("no tool at \(path)")
        }
        return path
    }
}

/// A failure of the test machinery itself (a spawn, a pipe), as opposed to the tool's.
struct ToolTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
