import Testing
@testable import WebSocketCore

@Suite("Limits: frame, message and fragment count, decided before memory is spent")
struct LimitsTests {
    @Test("A frame over maxFrameSize fails with 1009 from its header alone")
    func frameTooLarge() throws {
        var config = Configuration()
        config.limits.maxFrameSize = 1000
        var (_, server) = try openPair(server: config)
        // Only the header of a 1001-byte frame arrives.
        server.receive([0x82, 0xFE, 0x03, 0xE9, 1, 2, 3, 4])
        let events = drain(&server)
        #expect(events.first == .protocolViolation(ProtocolViolation(.frameTooLarge)))
        #expect(decodeFrames(server.takeOutput()).compactMap(closeCode) == [1009])
    }

    @Test("A length of 2^62 then silence: 1009 at once, nothing allocated for it")
    func hugeLengthThenSilence() throws {
        var (_, server) = try openPair()
        server.receive([0x82, 0xFF, 0x40, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4])
        #expect(drain(&server).first == .protocolViolation(ProtocolViolation(.frameTooLarge)))
        #expect(server.messageBuffer.capacity == 0)
    }

    @Test("A message over maxMessageSize fails with 1009 when the frame that crosses it is announced")
    func messageTooLarge() throws {
        var config = Configuration()
        config.limits.maxMessageSize = 10
        var (_, server) = try openPair(server: config)
        server.receive(clientFrame(0x2, [UInt8](repeating: 1, count: 6), fin: false))
        #expect(drain(&server).isEmpty)
        server.receive(Array(clientFrame(0x0, [UInt8](repeating: 1, count: 5), fin: true).prefix(6)))
        #expect(drain(&server).first == .protocolViolation(ProtocolViolation(.messageTooLarge)))
        #expect(decodeFrames(server.takeOutput()).compactMap(closeCode) == [1009])
    }

    @Test("A message of exactly maxMessageSize passes")
    func messageAtLimit() throws {
        var config = Configuration()
        config.limits.maxMessageSize = 10
        var (_, server) = try openPair(server: config)
        server.receive(clientFrame(0x2, [UInt8](repeating: 1, count: 4), fin: false) + clientFrame(0x0, [UInt8](repeating: 2, count: 6)))
        #expect(drain(&server) == [.binary([1, 1, 1, 1, 2, 2, 2, 2, 2, 2])])
    }

    @Test("100,000 one-byte fragments: 1009 at the fragment limit, memory bounded by the message limit")
    func manyFragments() throws {
        var config = Configuration()
        config.limits.maxFragmentsPerMessage = 1000
        var (_, server) = try openPair(server: config)
        var sawViolation = false
        var maxCapacity = 0
        var wire: [UInt8] = clientFrame(0x2, [0], fin: false)
        for _ in 1..<100_000 {
            wire += clientFrame(0x0, [0], fin: false)
            if wire.count > 4096 {
                server.receive(wire)
                wire.removeAll()
                for event in drain(&server) {
                    if case .protocolViolation(let v) = event {
                        #expect(v.kind == .tooManyFragments)
                        sawViolation = true
                    }
                }
                maxCapacity = max(maxCapacity, server.messageBuffer.capacity)
                if sawViolation { break }
            }
        }
        #expect(sawViolation)
        #expect(maxCapacity <= 1000 * 2)
        #expect(decodeFrames(server.takeOutput()).compactMap(closeCode) == [1009])
    }

    @Test("With the default limits, 100,000 one-byte fragments cost no more than their bytes")
    func manyFragmentsDefaultLimits() throws {
        var config = Configuration()
        config.limits.maxFragmentsPerMessage = 200_000
        var (_, server) = try openPair(server: config)
        var wire: [UInt8] = []
        for i in 0..<100_000 { wire += clientFrame(i == 0 ? 0x2 : 0x0, [UInt8(truncatingIfNeeded: i)], fin: i == 99_999) }
        server.receive(wire)
        let events = drain(&server)
        #expect(events == [.binary((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })])
    }

    @Test("A large frame grows its buffer as bytes arrive, never beyond what was announced")
    func growthBounded() throws {
        var (client, server) = try openPair()
        let payload = [UInt8](repeating: 7, count: 1 << 20)
        try client.send(binary: payload)
        let wire = client.takeOutput()
        server.receive(wire[0..<100])
        #expect(drain(&server).isEmpty)
        #expect(server.messageBuffer.capacity < 64 << 10)
        server.receive(wire[100...])
        #expect(server.messageBuffer.capacity <= (1 << 20) + 4096)
        #expect(drain(&server) == [.binary(payload)])
    }

    @Test("Sends are refused once the output reaches maxBufferedOutput")
    func outputLimit() throws {
        var config = Configuration()
        config.limits.maxBufferedOutput = 100
        var (_, server) = try openPair(server: config)
        try server.send(binary: [UInt8](repeating: 0, count: 150))
        #expect(throws: ConnectionError.outputBufferFull) { try server.send(text: "more") }
        #expect(throws: ConnectionError.outputBufferFull) { try server.ping() }
        _ = server.takeOutput()
        try server.send(text: "more")
    }
}
