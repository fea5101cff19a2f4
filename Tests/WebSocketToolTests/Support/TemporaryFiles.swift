// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A temporary directory for files the tool reads (PEM certificates and keys), removed with its
/// contents when this object goes away.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/websocket-tool-tests-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ToolTestError("mkdtemp: \(String(cString: strerror(errno)))") }
        path = String(cString: made)
    }

    deinit {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(directory)
        }
        rmdir(path)
    }

    /// The text of the file at `path`, and its permission bits.
    static func contents(of path: String) throws -> (text: String, mode: mode_t) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ToolTestError("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw ToolTestError("fstat \(path) failed") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let count = buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }), count > 0 {
            bytes += buffer[..<count]
        }
        return (String(decoding: bytes, as: UTF8.self), info.st_mode & 0o777)
    }

    /// Writes `bytes` to a file `name` in the directory; its path.
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = path + "/" + name
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ToolTestError("open \(file): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress!, $0.count) }
        guard written == bytes.count else { throw ToolTestError("write \(file) failed") }
        return file
    }
}
