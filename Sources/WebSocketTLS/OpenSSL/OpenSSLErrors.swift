// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import WebSocketTransport
internal import COpenSSL

/// One entry of OpenSSL's per-thread error queue.
struct OpenSSLError {
    /// The packed code (library and reason).
    let code: UInt
    /// The reason string, with the entry's data when it has some (an alert number, a file name).
    let text: String

    var library: Int32 { shim_ERR_GET_LIB(code) }
    var reason: Int32 { shim_ERR_GET_REASON(code) }
}

/// OpenSSL's error queue is per thread and accumulates until read. A session may be used from
/// different threads (one at a time), so every call into OpenSSL starts from an empty queue and
/// reads it right after: an error left behind would be blamed on the next call, on any session.
enum OpenSSLErrorQueue {
    /// OpenSSL keeps at most 16 entries per thread (ERR_NUM_ERRORS).
    private static let capacity = 16

    static func clear() {
        ERR_clear_error()
    }

    /// Takes every queued error, the oldest first (usually the cause), leaving the queue empty.
    static func drain() -> [OpenSSLError] {
        var errors: [OpenSSLError] = []
        while errors.count < capacity {
            var data: UnsafePointer<CChar>? = nil
            var flags: Int32 = 0
            let code = ERR_get_error_all(nil, nil, nil, &data, &flags)
            guard code != 0 else { break }
            var text = ERR_reason_error_string(code).map { String(cString: $0) } ?? fallbackText(code)
            if flags & ERR_TXT_STRING != 0, let data, data.pointee != 0 {
                text += " (\(String(cString: data)))"
            }
            errors.append(OpenSSLError(code: code, text: text))
        }
        ERR_clear_error()
        return errors
    }

    /// OpenSSL has no reason string for system errors (a file that does not open): its full line,
    /// `error:80000002:system library::No such file or directory`, ends with the system's.
    private static func fallbackText(_ code: UInt) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            guard let base = buffer.baseAddress else { return "OpenSSL error \(code)" }
            ERR_error_string_n(code, base, buffer.count)
            let line = String(cString: base)
            return line.split(separator: ":", omittingEmptySubsequences: false).last.map(String.init) ?? line
        }
    }

    /// The queued errors as one line (draining the queue); `fallback` when there are none.
    static func drainDescription(fallback: String = "no details from OpenSSL") -> String {
        describe(drain(), fallback: fallback)
    }

    static func describe(_ errors: [OpenSSLError], fallback: String = "no details from OpenSSL") -> String {
        errors.isEmpty ? fallback : errors.map(\.text).joined(separator: "; ")
    }
}

extension WebSocketError {
    /// A configuration error whose reason is `what`, then OpenSSL's queued errors (draining them).
    static func tlsConfiguration(_ what: String) -> WebSocketError {
        .tls(TLSError(.configuration, reason: what + ": " + OpenSSLErrorQueue.drainDescription()))
    }
}
#endif
