// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The three byte queues of a proxy tunnel and the rule both tunnels (HTTP `CONNECT`, SOCKS5) follow
/// with them: bytes from the layer above wait, within ``ProxyLimits/maxBufferedSend``, until the proxy
/// has said yes, and only then follow the tunnel's own messages, never before (a refusing proxy would
/// read them as another request, or as a reply to its question).
struct TunnelStreams: Sendable {
    let maxBufferedSend: Int
    /// To the proxy: the tunnel's own messages, then, once established, the bytes from above.
    var output = ByteQueue()
    /// For the layer above: what the proxy sent after its last reply.
    var inbound = ByteQueue()
    /// From above, while establishing.
    private(set) var held = ByteQueue()

    init(maxBufferedSend: Int) { self.maxBufferedSend = maxBufferedSend }

    /// Takes bytes from above in `status`; returns the failure when holding them would pass the limit.
    mutating func send(_ bytes: UnsafeRawBufferPointer, in status: TransportLayerStatus) -> ProxyError? {
        switch status {
        case .establishing:
            guard bytes.count <= maxBufferedSend - held.count else {
                return ProxyError(.limitExceeded, reason: "more than \(maxBufferedSend) bytes (ProxyLimits.maxBufferedSend)")
            }
            held.append(bytes)
        case .established, .ended:
            output.append(bytes)
        case .failed:
            break
        }
        return nil
    }

    /// The proxy said yes: what waited goes out.
    mutating func established() {
        output.append(contentsOf: held)
        held.removeAll()
    }

    /// The tunnel failed: the bytes from above never go out, nor do the proxy's go up. Its own
    /// messages still do (so that what is written depends on the input, not on when it was taken).
    mutating func failed() {
        held.removeAll()
        inbound.removeAll()
    }
}
