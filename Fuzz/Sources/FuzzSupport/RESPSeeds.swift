// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The seeds of `resp`: the specification's examples, the edges and failures of the decoder's tests
/// (Tests/WebSocketRedisTests), Pub/Sub messages in both shapes, and build-mode scripts, in the
/// target's input format (see `RESPTarget`).
enum RESPSeeds {
    static func input(_ control: UInt8, _ bytes: [UInt8], split: Int = 0) -> [UInt8] {
        [control, UInt8((split >> 8) & 0xFF), UInt8(split & 0xFF)] + bytes
    }

    static func text(_ string: String) -> [UInt8] { Array(string.utf8) }

    static var all: [(String, [UInt8])] {
        let raw: [(String, String)] = [
            ("simple-string", "+OK\r\n"),
            ("error", "-ERR unknown command 'HELLO', with args beginning with: '3'\r\n"),
            ("integers", ":0\r\n:-42\r\n:+7\r\n:-0\r\n:9223372036854775807\r\n:-9223372036854775808\r\n"),
            ("bulk-strings", "$5\r\nhello\r\n$0\r\n\r\n$-1\r\n$4\r\na\r\nb\r\n"),
            ("arrays", "*2\r\n*3\r\n:1\r\n:2\r\n:3\r\n*2\r\n+Hello\r\n-World\r\n*-1\r\n*0\r\n"),
            ("resp3-scalars", "_\r\n#t\r\n#f\r\n,1.23\r\n,inf\r\n,-inf\r\n,nan\r\n,-1.5e3\r\n(3492890328409238509324850943850943825024385\r\n"),
            ("bulk-error-verbatim", "!21\r\nSYNTAX invalid syntax\r\n=15\r\ntxt:Some string\r\n"),
            ("map-set", "%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n~3\r\n+orange\r\n#t\r\n:100\r\n"),
            ("attribute", "|1\r\n+key-popularity\r\n%2\r\n$1\r\na\r\n,0.1923\r\n$1\r\nb\r\n,0.0012\r\n*2\r\n:2039123\r\n:9543892\r\n"),
            ("attribute-inside", "*2\r\n:1\r\n|1\r\n+ttl\r\n:3600\r\n:2\r\n"),
            ("hello-reply", "%3\r\n$6\r\nserver\r\n$5\r\nredis\r\n$5\r\nproto\r\n:3\r\n$7\r\nmodules\r\n*0\r\n"),
            ("push-subscribe", ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n>3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n"),
            ("push-message", ">3\r\n$7\r\nmessage\r\n$1\r\na\r\n$2\r\nhi\r\n>3\r\n$8\r\nsmessage\r\n$1\r\ns\r\n$0\r\n\r\n"),
            ("resp2-pubsub", "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n*4\r\n$8\r\npmessage\r\n$2\r\na*\r\n$2\r\nab\r\n$1\r\nx\r\n"
                + "*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n*2\r\n$4\r\npong\r\n$0\r\n\r\n"),
            ("bad-type", "?x\r\n"),
            ("bare-lf", "+OK\n"),
            ("cr-alone", "$3\r\nabc\rX"),
            ("negative-length", "$-2\r\n"),
            ("bulk-over-limit", "$16842753\r\n"),
            ("integer-overflow", ":9223372036854775808\r\n"),
            ("deep", String(repeating: "*1\r\n", count: 40) + ":1\r\n"),
            ("truncated", "*3\r\n$7\r\nmessage\r\n%1\r\n+k\r\n,1.5\r\n>2\r\n=6\r\ntxt:hi\r\n(-12"),
        ]
        var seeds: [(String, [UInt8])] = []
        for (index, (name, wire)) in raw.enumerated() {
            seeds.append(("raw-\(name)", input(UInt8(index % 4), text(wire), split: index * 7)))
        }
        // Build mode: an array of a bulk string and a map, an attribute before a push, every scalar.
        seeds.append(("build-nested", input(0x04, [12, 3, 3, 5] + text("hello") + [15, 1, 0, 1, 0x41, 2] + [UInt8](repeating: 7, count: 8)
                                                  + [0x8E, 6, 2, 7, 1, 3, 2] + text("hi"), split: 9)))
        seeds.append(("build-scalars", input(0x04, [0, 2] + text("OK") + [1, 3] + text("ERR") + [4, 5, 6, 7, 1]
                                                   + [8, 0x40, 0x09, 0x21, 0xFB, 0x54, 0x44, 0x2D, 0x18] + [9, 1, 5, 1, 2, 3, 4, 5]
                                                   + [10, 3] + text("bad") + [11] + text("txt") + [2] + text("hi"))))
        seeds.append(("build-small-limits", input(0x05, [12, 4, 12, 4, 12, 4, 12, 4, 12, 4, 6])))
        return seeds
    }
}
