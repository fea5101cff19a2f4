// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection.HandshakeRequest {
    /// The elements of the request's `Forwarded` fields (RFC 7239), in the order of the fields and of the
    /// elements in each: the element the proxy nearest this server appended comes last. `[]` when there
    /// is no such field. Parsed on each read (linear in the fields, which `maxHeaderBytes` bounds).
    ///
    /// **Parsed, never trusted.** A client can send any `Forwarded` field it likes; a proxy appends its
    /// element to what it received. Only the last elements, each appended by a proxy you trust, say
    /// where the request came from: walk back from the end while the node that sent the request to you
    /// (the socket's peer, then each element's `for`) is a proxy you trust, and take the first `for` that
    /// is not. An element that breaks the grammar is kept in place with
    /// ``Connection/ForwardedElement/isMalformed`` set: stop there. See
    /// ``Connection/ForwardedElement/parseList(_:)`` for the grammar.
    ///
    /// ```swift
    /// // Forwarded: for=192.0.2.43, for="[2001:db8:cafe::17]:4711";proto=https
    /// request.forwarded.last?.for?.name   // .ipv6("2001:db8:cafe::17")
    /// request.forwarded.last?.proto       // "https"
    /// ```
    ///
    /// RFC 7239 §4, §8.1: <https://www.rfc-editor.org/rfc/rfc7239#section-4>
    public var forwarded: [Connection.ForwardedElement] {
        Connection.ForwardedElement.parseList(head.headers.values(for: "Forwarded"))
    }

    /// The entries of the request's `X-Forwarded-For` fields, the de facto field that `Forwarded`
    /// replaces: comma-separated, trimmed of whitespace, empty entries dropped, in the order of the
    /// fields, so that the entry the nearest proxy appended comes last. Not validated: an entry is
    /// usually an address (`192.0.2.43`, `2001:db8::17`), sometimes with a port or `unknown`, and may be
    /// anything a client wrote. Parsed, never trusted, as ``forwarded`` says.
    public var xForwardedFor: [String] {
        HTTPTokens.listElements(head.headers.values(for: "X-Forwarded-For")).map { String($0) }
    }
}
