// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("Output after a partial write")
struct PartialWriteTests {
    @Test("takeOutput after withPendingOutput wrote part of the output returns exactly the rest", arguments: [1, 3, 6])
    func takeOutputAfterPartialWrite(written count: Int) throws {
        var (client, server) = try openPair()
        try server.send(text: "hello")
        try server.ping([9])
        var reference = server
        let all = reference.takeOutput()
        var first: [UInt8] = []
        server.withPendingOutput { bytes in
            first = Array(bytes.prefix(count))
            return count
        }
        #expect(server.pendingOutputCount == all.count - count)
        let rest = server.takeOutput()
        #expect(first + rest == all)
        #expect(server.pendingOutputCount == 0)
        #expect(server.takeOutput().isEmpty)
        client.receive(first + rest)
        #expect(drain(&client) == [.text("hello"), .ping([9])])
    }
}
