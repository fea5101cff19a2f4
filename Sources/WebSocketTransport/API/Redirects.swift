// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

extension Connection.ClientOptions {
    /// The request for the next hop of `redirect`: its target URL, and what may go there.
    ///
    /// To the same host the request keeps everything, and the URL's user and password unless the
    /// `Location` gave its own. To another host the credentials of the URL, the `Authorization` and
    /// `Cookie` headers and the cookies are dropped: they were meant for the first host only.
    package func following(_ redirect: Connection.Redirect) -> Connection.ClientOptions {
        var next = self
        next.url = redirect.target
        if redirect.changesHost {
            next.cookies = []
            next.headers.remove(name: "Authorization")
            next.headers.remove(name: "Cookie")
        } else if redirect.target.user == nil {
            next.url.user = url.user
            next.url.password = url.password
        }
        return next
    }
}

/// The hops of one connect: follows redirects within ``TransportOptions/maxRedirects``, for both
/// client adapters.
package struct RedirectChain: Sendable {
    /// Every URL asked for so far, the first one first.
    package private(set) var hops: [WebSocketURL]
    private let limit: Int

    package init(first url: WebSocketURL, limit: Int) {
        hops = [url]
        self.limit = max(0, limit)
    }

    /// The request and endpoint for the next hop after `failure`, `nil` when `failure` is not a
    /// redirect to follow (it is then reported as it is).
    ///
    /// - Throws: ``WebSocketError/redirectRefused(_:reason:)`` for `wss` to `ws` or a redirect from
    ///   a Unix socket; ``WebSocketError/tooManyRedirects(_:)`` past the limit.
    package mutating func next(after failure: Connection.HandshakeFailure, request: Connection.ClientOptions,
                               endpoint: WebSocketEndpoint) throws(WebSocketError)
        -> (request: Connection.ClientOptions, endpoint: WebSocketEndpoint)?
    {
        guard let redirect = failure.redirected, limit > 0 else { return nil }
        if redirect.isDowngrade { throw .redirectRefused(redirect, reason: "it leaves TLS (wss to ws)") }
        if endpoint.unixSocketPath != nil {
            throw .redirectRefused(redirect, reason: "the request went to a Unix socket")
        }
        hops.append(redirect.target)
        guard hops.count <= limit + 1 else { throw .tooManyRedirects(hops) }
        let next = request.following(redirect)
        return (next, WebSocketEndpoint(url: next.url))
    }
}
