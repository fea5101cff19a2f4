// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// A request's key is kept as its 24 bytes when it is valid (`ClientKey`), checked by a test of its
/// own (`Base64.isSixteenBytesEncoded`): both must agree with the general decoder and with the
/// string they stand for.
@Suite("A client's key kept as its bytes")
struct ClientKeyTests {
    private static func checked(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { Base64.isSixteenBytesEncoded($0) }
    }

    private static func decodesToSixteen(_ bytes: [UInt8]) -> Bool {
        Base64.decodedCount(String(decoding: bytes, as: UTF8.self)) == 16
            && String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes)
    }

    @Test("The key check agrees with the decoder: every byte at every place of a valid key, and every last symbol")
    func checkAgreesWithDecoder() {
        let valid = Array("dGhlIHNhbXBsZSBub25jZQ==".utf8)
        #expect(Self.checked(valid))
        var cases = 0
        for place in 0..<valid.count {
            for byte in 0...255 {
                var key = valid
                key[place] = UInt8(byte)
                #expect(Self.checked(key) == Self.decodesToSixteen(key), "byte \(byte) at \(place)")
                cases += 1
            }
        }
        #expect(cases == 24 * 256)
        // Lengths around 24, and the other paddings.
        for text in ["", "AAAAAAAAAAAAAAAAAAAAAA=", "AAAAAAAAAAAAAAAAAAAAAA===", "AAAAAAAAAAAAAAAAAAAAAAA=",
                     "AAAAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAw==",
                     "AAAAAAAAAAAAAAAAAAAAAx==", "/+/+/+/+/+/+/+/+/+/+/w=="] {
            let key = Array(text.utf8)
            #expect(Self.checked(key) == Self.decodesToSixteen(key), "\(text)")
        }
    }

    @Test("Random 24-byte keys from the alphabet and padding: the check agrees with the decoder")
    func randomKeys() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=".utf8)
        var generator = Connection.SeededGenerator(seed: 0x5EED)  // the same keys on every run
        var accepted = 0
        for _ in 0..<20_000 {
            var key = (0..<24).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            if generator.next() % 2 == 0 { key[22] = UInt8(ascii: "="); key[23] = UInt8(ascii: "=") }
            let agrees = Self.checked(key) == Self.decodesToSixteen(key)
            #expect(agrees, "\(key)")
            if !agrees { return }
            if Self.checked(key) { accepted += 1 }
        }
        #expect(accepted > 100, "too few valid keys drawn to test the acceptance side: \(accepted)")
    }

    @Test("A key made from its bytes or from its string is the same value, and gives back the string")
    func sameValueEitherWay() throws {
        let text = "x3JJHMbDL1EzLkh9GBhXDw=="
        let fromBytes = try #require(Array(text.utf8).withUnsafeBufferPointer { ClientKey($0) })
        let fromString = ClientKey(text)
        #expect(fromBytes.isValid && fromString.isValid)
        #expect(fromBytes == fromString)
        #expect(fromBytes.hashValue == fromString.hashValue)
        #expect(fromBytes.string == text)
        #expect(fromBytes.withUTF8 { Array($0) } == Array(text.utf8))
        // Any other value is kept as it is.
        for other in ["", "not a key", "dGhlIHNhbXBsZSBub25jZQ=", "dGhlIHNhbXBsZSBub25jZQ==x", "caf\u{E9}"] {
            let key = ClientKey(other)
            #expect(!key.isValid)
            #expect(key.string == other)
            #expect(key.withUTF8 { Array($0) } == Array(other.utf8))
            #expect(Array(other.utf8).withUnsafeBufferPointer { ClientKey($0) } == nil)
        }
        #expect(ClientKey("abc") != ClientKey("abd"))
        #expect(ClientKey(text) != ClientKey("dGhlIHNhbXBsZSBub25jZQ=="))
    }

    @Test("The accept value of a key kept as bytes is the RFC's, and a request's key reads and writes as a string")
    func acceptAndRequestKey() throws {
        var out: [UInt8] = []
        AcceptKey.appendAccept(for: ClientKey("dGhlIHNhbXBsZSBub25jZQ=="), to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        // A key that is no valid key is hashed as it is, as before.
        #expect(AcceptKey.accept(forKey: "abc") == Base64.encode(SHA1.hash(Array("abc258EAFA5-E914-47DA-95CA-C5AB0DC85B11".utf8))))

        let head = try OpenedConnectionTests.requestHead(clientOptions())
        var request = try Connection.HandshakeRequest(validating: head)
        #expect(request.clientKey.isValid)
        #expect(request.key == head.headers["Sec-WebSocket-Key"])
        let parsed = request
        request.key = request.key  // the same string, stored again: the same value
        #expect(request == parsed)
        #expect(request.hashValue == parsed.hashValue)
        request.key = "changed"
        #expect(request.key == "changed")
        #expect(!request.clientKey.isValid)
        #expect(request != parsed)
    }
}
