import Testing
@testable import WebSocketCore

@Suite("Keepalive pings without a pong timeout")
struct KeepaliveWithoutTimeoutTests {
    static func at(_ seconds: Int) -> Connection.Instant { Connection.Instant(sinceOrigin: .seconds(seconds)) }

    @Test("With keepaliveTimeout nil: a ping every interval whether or not pongs come back, and the connection stays open")
    func pingsEveryIntervalWithoutTimeout() throws {
        var config = Connection.Configuration()
        config.timeouts.keepaliveInterval = .seconds(30)
        config.timeouts.keepaliveTimeout = nil
        var (client, _) = try openPair(client: config)
        client.advanceTime(to: Self.at(0))
        #expect(client.nextDeadline == Self.at(30))
        var counters: [[UInt8]] = []
        for tick in [30, 60, 90] {
            client.advanceTime(to: Self.at(tick))
            let frames = decodeFrames(client.takeOutput())
            #expect(frames.map(\.opcode) == [0x9])
            counters += frames.map(\.payload)
            // No pong timer: the next deadline is the next ping, one interval on.
            #expect(client.nextDeadline == Self.at(tick + 30))
        }
        #expect(counters == [[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 0, 0, 3]])
        #expect(client.state == .open)
        #expect(drain(&client).isEmpty)
    }
}
