// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The connection's random source: the generator it was made with, in a class box that a copy of the
/// connection shares until either draws (copied on write), so that a copy forks the generator as a
/// copy of the generator itself would. A box instead of `any RandomNumberGenerator`, for Embedded
/// Swift, which has no such existentials; in full Swift the connection keeps the existential (see
/// ``Connection/random``).
struct RandomSource: RandomNumberGenerator, Sendable {
    private var box: RandomBox

    init(_ generator: some RandomNumberGenerator & Sendable) {
        box = RandomBox.make(generator)
    }

    /// The generator's next value.
    mutating func next() -> UInt64 {
        if !isKnownUniquelyReferenced(&box) { box = box.copy() }
        return box.next()
    }
}

/// A generator behind closures that share it. `@unchecked Sendable`: a box is drawn from only
/// through its unique owner (`RandomSource.next()` copies a shared one first), so no two threads
/// touch the generator at once.
final class RandomBox: @unchecked Sendable {
    let next: () -> UInt64
    let copy: () -> RandomBox

    private init(next: @escaping () -> UInt64, copy: @escaping () -> RandomBox) {
        self.next = next
        self.copy = copy
    }

    static func make<G: RandomNumberGenerator & Sendable>(_ generator: G) -> RandomBox {
        var generator = generator
        return RandomBox(next: { generator.next() }, copy: { make(generator) })
    }
}

extension Connection {
    /// `generator` as the connection stores it (see ``Connection/random``).
    static func randomStorage(_ generator: some RandomNumberGenerator & Sendable) -> RandomStorage {
        #if hasFeature(Embedded)
        RandomSource(generator)
        #else
        generator
        #endif
    }

    #if hasFeature(Embedded)
    typealias RandomStorage = RandomSource
    #else
    typealias RandomStorage = any RandomNumberGenerator & Sendable
    #endif
}
