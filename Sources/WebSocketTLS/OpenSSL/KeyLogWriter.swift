// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import WebSocketTransport
internal import COpenSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A context's ``TLSConfiguration/unsafeKeyLog``, opened: OpenSSL's key log callback finds it in
/// the `SSL_CTX`'s ex-data, which holds its address while the context (which owns it) lives.
final class KeyLogWriter: Sendable {
    private enum Target: Sendable {
        case file(descriptor: Int32)
        case sink(@Sendable (String) -> Void)
    }

    private let target: Target

    /// Opens the file of a file log (appending, created 0600).
    init(_ log: TLSKeyLog) throws(WebSocketError) {
        switch log.destination {
        case .sink(let sink):
            target = .sink(sink.write)
        case .file(let path):
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                throw .tls(TLSError(.configuration, reason: "cannot open the key log \(String(reflecting: path)): \(reason)"))
            }
            target = .file(descriptor: descriptor)
        }
    }

    deinit {
        if case .file(let descriptor) = target { close(descriptor) }
    }

    /// One line, without its newline. A file's line goes in one `write` so that lines of sessions
    /// on other threads, or of other processes, never interleave within it; a line that cannot be
    /// written is dropped (the session cannot wait, nor fail for its debugging aid).
    func append(_ line: String) {
        switch target {
        case .sink(let sink):
            sink(line)
        case .file(let descriptor):
            var bytes = Array(line.utf8)
            bytes.append(UInt8(ascii: "\n"))
            bytes.withUnsafeBytes { buffer in
                var result: Int
                repeat {
                    result = write(descriptor, buffer.baseAddress, buffer.count)
                } while result < 0 && errno == EINTR
            }
        }
    }

    /// Makes OpenSSL give `context`'s sessions' secrets to this writer.
    func install(in context: OpaquePointer) throws(WebSocketError) {
        guard SSL_CTX_set_ex_data(context, Self.exDataIndex, Unmanaged.passUnretained(self).toOpaque()) == 1 else {
            throw .tlsConfiguration("cannot set up the key log")
        }
        SSL_CTX_set_keylog_callback(context, logKeyLine)
    }

    /// The index of the `SSL_CTX` ex-data that holds the writer: 0, the application's (as
    /// `SSL_CTX_set_app_data`), since nothing else here uses a context's ex-data.
    static let exDataIndex: Int32 = 0
}

/// OpenSSL's key log callback: `line` is one NSS key log line, without its newline.
private let logKeyLine: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Void = { ssl, line in
    guard let ssl, let line, let context = SSL_get_SSL_CTX(ssl),
          let writer = SSL_CTX_get_ex_data(context, KeyLogWriter.exDataIndex)
    else { return }
    Unmanaged<KeyLogWriter>.fromOpaque(writer).takeUnretainedValue().append(String(cString: line))
}
#endif
