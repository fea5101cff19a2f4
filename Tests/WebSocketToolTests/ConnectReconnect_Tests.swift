import Testing
import WebSocketCore

/// `websocket connect --reconnect N`: a connection that ends with 1001, 1011, 1012 or 1013 (or
/// abnormally, or fails to open) is made again, at most N times; other endings are final.
@Suite("connect: --reconnect")
struct ConnectReconnectTests {
    @Test("The server closes the first connection with a code worth retrying: the tool connects again, and carries on", arguments: [UInt16(1001), 1011, 1012, 1013])
    func reconnects(code: UInt16) throws {
        let server = try RecordingServer(onOpen: { index, socket in
            if index == 0 { try? socket.sendClose(code: Connection.CloseCode(rawValue: code)) }
        })
        let tool = try ToolProcess(["connect", server.url(), "--reconnect", "3", "--reconnect-delay", "0.1"])
        try #require(server.wait { $0.connections == 2 }, "no second connection: \(tool.transcript)")
        tool.write("after reconnecting\n")
        #expect(tool.waitForOutput(containing: "after reconnecting"), "\(tool.transcript)")
        tool.closeStdin()
        #expect(tool.waitForExit() == 0, "\(tool.transcript)")
        #expect(server.seen.requests.count == 2)
        #expect(server.seen.texts == ["after reconnecting"])
    }

    @Test("The server drops the connection without a Close (abnormal): --reconnect 1 connects once more, then exits 6")
    func reconnectsAfterAbnormalClosure() throws {
        // Every connection is dropped: one try and one retry, then the abnormal closure is final.
        let peer = try DroppingPeer(count: 2)
        let tool = try ToolProcess(["connect", peer.url, "--reconnect", "1", "--reconnect-delay", "0.1"])
        #expect(tool.waitForExit() == 6, "\(tool.transcript)")
        #expect(peer.wait { $0 == 2 }, "the tool connected \(peer.acceptedCount) times, not 2 (one try and one retry): \(tool.transcript)")
    }

    @Test("A final ending (1000, 4000) is not retried", arguments: [(UInt16(1000), Int32(0)), (4000, 1)])
    func noRetry(code: UInt16, status: Int32) throws {
        let server = try RecordingServer(onOpen: { _, socket in try? socket.sendClose(code: Connection.CloseCode(rawValue: code)) })
        let tool = try ToolProcess(["connect", server.url(), "--reconnect", "3", "--reconnect-delay", "0.1"])
        #expect(tool.waitForExit() == status, "\(tool.transcript)")
        #expect(server.seen.connections == 1, "\(tool.transcript)")
    }

    @Test("Refused every time: N retries, then exit 3")
    func refusedEveryTime() throws {
        let port = try unusedPort()
        let tool = try ToolProcess(["connect", "ws://127.0.0.1:\(port)/", "--reconnect", "2", "--reconnect-delay", "0.1"])
        #expect(tool.waitForExit() == 3, "\(tool.transcript)")
    }
}
