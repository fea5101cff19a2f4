// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("SHA-1 (RFC 3174) and base64 (RFC 4648)")
struct HandshakeCryptoTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { b in
            let s = String(b, radix: 16)
            return b < 16 ? "0" + s : s
        }.joined()
    }

    @Test("RFC 3174 §7.3 test vectors", arguments: [
        ("abc", 1, "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ("a", 1_000_000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        ("0123456701234567012345670123456701234567012345670123456701234567", 10,
         "dea356a2cddd90c7a7ecedc5ebb563934f460452"),
        ("", 1, "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
    ])
    func sha1(input: String, repeats: Int, digest: String) {
        var sha = SHA1()
        for _ in 0..<repeats { sha.update(input.utf8) }
        #expect(Self.hex(sha.finalize()) == digest)
    }

    /// A 60-byte message (the accept value's length) ends with a block whose schedule is
    /// precomputed: checked against digests computed elsewhere (Python's `hashlib`), since the
    /// other tests compare this implementation with itself.
    @Test("SHA-1 of 60-byte messages, whose last block is precomputed, matches independent digests", arguments: [
        (Array(repeating: UInt8(ascii: "a"), count: 60), "13d956033d9af449bfe2c4ef78c17c20469c4bf1"),
        (Array(0..<60), "c98714b16f92c8a770e9fc229df834d1688e282f"),
        (Array(200...255) + [0, 1, 2, 3], "b58f1237f16f7cb2c17a5efe9ba3e092aa65a792"),
    ] as [([UInt8], String)])
    func sha1SixtyBytes(input: [UInt8], digest: String) {
        #expect(Self.hex(SHA1.hash(input)) == digest)
        var split = SHA1()
        split.update(input[..<17])
        split.update(input[17...])
        #expect(Self.hex(split.finalize()) == digest)
    }

    @Test("SHA-1 of every length around the padding boundary matches one-shot hashing split anywhere")
    func sha1Splits() {
        let data = (0..<130).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for n in 0...data.count {
            let whole = SHA1.hash(data[0..<n])
            var split = SHA1()
            split.update(data[0..<(n / 2)])
            split.update(data[(n / 2)..<n])
            #expect(split.finalize() == whole)
        }
    }

    @Test("SHA-1 of a sequence without contiguous storage, and a digest written into a buffer, are the one-shot digest")
    func sha1OtherPaths() {
        for n in [0, 1, 55, 56, 63, 64, 65, 119, 120, 200] {
            let data = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
            let whole = SHA1.hash(data)
            var bytewise = SHA1()
            bytewise.update(data.lazy.map { $0 })   // no contiguous storage: byte by byte
            #expect(bytewise.finalize() == whole, "length \(n)")
            var intoBuffer = SHA1()
            intoBuffer.update(data)
            var digest = [UInt8](repeating: 0xAA, count: SHA1.digestSize + 4)
            digest.withUnsafeMutableBytes { intoBuffer.finalize(into: $0) }
            #expect(Array(digest[..<SHA1.digestSize]) == whole, "length \(n)")
            #expect(digest[SHA1.digestSize...].allSatisfy { $0 == 0xAA }, "wrote past the digest at length \(n)")
        }
    }

    @Test("RFC 4648 §10 base64 vectors", arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ])
    func base64(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
        #expect(Base64.decodedCount(encoded) == plain.utf8.count)
        var appended: [UInt8] = [1, 2]
        Array(plain.utf8).withUnsafeBytes { Base64.encode($0, appendingTo: &appended) }
        #expect(appended == [1, 2] + Array(encoded.utf8))
    }

    @Test("base64 decoding is strict", arguments: [
        "Zg=", "Zg", "Z===", "Zh==", "Zm9=", "Zm 9v", "Zm9v\n", "=Zm9", "Zg==Zg==", "Zm9v!A==", "Zm8=Zm8=",
        "Zg=A", "Z=g=", "Zm9v=m9v", "Zm9vZ=9v",
    ])
    func base64Rejects(text: String) {
        #expect(Base64.decode(text) == nil)
        #expect(Base64.decodedCount(text) == nil)
        #expect(Base64.decode(Substring(text)) == nil)
    }

    @Test("base64 round-trips every byte value and length")
    func base64RoundTrip() {
        var bytes: [UInt8] = []
        for n in 0..<300 {
            let encoded = Base64.encode(bytes)
            #expect(Base64.decode(encoded) == bytes)
            #expect(Base64.decodedCount(encoded) == bytes.count)
            #expect(Base64.encode(bytes.lazy.map { $0 }) == encoded)   // no contiguous storage
            bytes.append(UInt8(truncatingIfNeeded: n &* 31 &+ 7))
        }
    }

    @Test("RFC 6455 §1.3 accept value for the sample nonce")
    func acceptKey() {
        #expect(AcceptKey.accept(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        var head = Array("Sec-WebSocket-Accept: ".utf8)
        AcceptKey.appendAccept(forKey: "dGhlIHNhbXBsZSBub25jZQ==", to: &head)
        #expect(String(decoding: head, as: UTF8.self) == "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        // Two more keys, their values computed elsewhere (Python's hashlib and base64).
        #expect(AcceptKey.accept(forKey: "x3JJHMbDL1EzLkh9GBhXDw==") == "HSmrc0sMlYUkAGmm5OPpG2HaGWk=")
        #expect(AcceptKey.accept(forKey: "AQIDBAUGBwgJCgsMDQ4PEA==") == "C/0nmHhBztSRGR1CwL6Tf4ZjwpY=")
    }
}
