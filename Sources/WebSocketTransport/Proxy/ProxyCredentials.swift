// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A user name and password for a proxy: `Proxy-Authorization: Basic` for an HTTP proxy (RFC 7617),
/// the username/password method for a SOCKS5 proxy (RFC 1929).
///
/// Neither part appears in ``description`` or in a `dump`, so that logging a credential or a
/// ``ProxyURL`` does not leak it.
public struct ProxyCredentials: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The user name (RFC 7617's user-id), as sent: a ``ProxyURL`` has percent-decoded it.
    public var user: String
    /// The password, as sent.
    public var password: String

    /// Credentials. Nothing is checked here: each tunnel checks what its protocol can carry when it is
    /// made (``ProxyError/Code/invalidCredentials``).
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// `credentials (hidden)`: never the user name or the password.
    public var description: String { "credentials (hidden)" }

    /// A mirror without the user name and password.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
