// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Where ``TLSConfiguration/unsafeKeyLog`` writes every session's secrets, one line each in the NSS
/// key log format (`SSLKEYLOGFILE`) that Wireshark reads to decrypt captured traffic:
///
/// ```
/// CLIENT_HANDSHAKE_TRAFFIC_SECRET 5d1e…(the ClientHello's random, 64 hex digits) 8a3f…(the secret)
/// ```
///
/// TLS 1.3 sessions write `CLIENT_HANDSHAKE_TRAFFIC_SECRET`, `SERVER_HANDSHAKE_TRAFFIC_SECRET`,
/// `CLIENT_TRAFFIC_SECRET_0`, `SERVER_TRAFFIC_SECRET_0` and `EXPORTER_SECRET`; TLS 1.2 sessions
/// `CLIENT_RANDOM` (the master secret).
///
/// **Anyone who reads these lines can decrypt every session they cover, and change it if they are
/// on the path while it runs.** For debugging only: keep the file private, delete it afterwards,
/// and never turn it on from the environment of a production process.
///
/// Equality: two file logs are equal when their paths are; a sink equals itself and its copies only
/// (closures cannot be compared).
public struct TLSKeyLog: Sendable, Hashable {
    enum Destination: Sendable, Hashable {
        case file(String)
        case sink(Sink)
    }

    final class Sink: Sendable, Hashable {
        let write: @Sendable (String) -> Void

        init(_ write: @escaping @Sendable (String) -> Void) {
            self.write = write
        }

        static func == (lhs: Sink, rhs: Sink) -> Bool { lhs === rhs }

        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }

    let destination: Destination

    /// Lines appended to the file at `path`, each with its newline. The file is opened when the
    /// ``TLSContext`` is made (a file that cannot be opened fails it with
    /// ``WebSocketTransport/TLSError/Kind/configuration``) and created with mode 0600 if it does
    /// not exist; an existing file keeps its mode. Each line is one `write(2)` to a file opened
    /// with `O_APPEND`, from the thread that runs the session, during the handshake: meant for a
    /// local file, and safe for several contexts and processes appending to the same one.
    public static func file(_ path: String) -> TLSKeyLog {
        TLSKeyLog(destination: .file(path))
    }

    /// Lines given to `sink`, each without its newline, on the thread that runs the session, during
    /// the handshake, from any number of sessions at once: `sink` must be quick and thread-safe.
    public init(_ sink: @escaping @Sendable (String) -> Void) {
        destination = .sink(Sink(sink))
    }

    private init(destination: Destination) {
        self.destination = destination
    }

    /// The file's path, for a file log; `nil` for a sink.
    public var path: String? {
        if case .file(let path) = destination { return path }
        return nil
    }
}
