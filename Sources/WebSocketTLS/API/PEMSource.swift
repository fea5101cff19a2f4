// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Where PEM text comes from: a file, read when the ``TLSContext`` is created, or bytes you hold (a
/// secret store, an environment variable, a certificate made at run time).
///
/// A certificate source holds one or more `-----BEGIN CERTIFICATE-----` blocks (a chain: the leaf
/// first, then its intermediates); a key source holds one unencrypted private key (`PRIVATE KEY`,
/// `EC PRIVATE KEY` or `RSA PRIVATE KEY`). Blocks of other kinds are skipped, so one file may hold a
/// key and its chain.
///
/// ```swift
/// let chain = PEMSource.file("/etc/ssl/example.com/fullchain.pem")
/// let key = PEMSource.pem(secretStore.string("tls-key"))
/// ```
public enum PEMSource: Sendable, Hashable, CustomStringConvertible {
    /// A file's path.
    case file(String)
    /// PEM text, as bytes.
    case bytes([UInt8])

    /// PEM text held in a string.
    public static func pem(_ text: String) -> PEMSource { .bytes(Array(text.utf8)) }

    /// How errors name the source: the path, or "PEM bytes" (never the bytes: they may be a key).
    public var description: String {
        switch self {
        case .file(let path): return String(reflecting: path)
        case .bytes(let bytes): return "PEM bytes (\(bytes.count) bytes)"
        }
    }
}
