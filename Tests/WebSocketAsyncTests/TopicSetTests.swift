// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketAsync

/// A connection's set of topics, held inline while there is one: it answers as a `Set<String>`
/// does through every change of form (none, one, several, back to one or none).
@Suite("WebSocketAsync topic set")
struct TopicSetTests {
    @Test("Insertions and removals answer as a Set's, and leave the same topics, over 5,000 random steps")
    func behavesAsASet() {
        var generator = SeededGenerator(seed: 0x7019_C5E7)
        // Few names, so that insertions meet topics already there and removals find them; one
        // long name (a string stored out of line) among the short ones.
        let names = ["a", "b", "news", "", "a-topic-name-longer-than-fifteen-bytes"]
        var topics = TopicSet()
        var model: Set<String> = []
        for step in 0..<5_000 {
            let name = names[Int.random(in: 0..<names.count, using: &generator)]
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                let inserted = topics.insert(name)
                #expect(inserted == model.insert(name).inserted, "step \(step): insert \(name)")
            case 5..<9:
                let removed = topics.remove(name)
                #expect(removed == (model.remove(name) != nil), "step \(step): remove \(name)")
            default:
                topics.removeAll()
                model.removeAll()
            }
            #expect(topics.count == model.count, "step \(step)")
            #expect(topics.isEmpty == model.isEmpty, "step \(step)")
            #expect(topics.set == model, "step \(step)")
            for other in names { #expect(topics.contains(other) == model.contains(other), "step \(step): contains \(other)") }
        }
    }

    @Test("One topic, then a second, then the first removed: each step as a set says")
    func oneToManyAndBack() {
        var topics = TopicSet()
        var answers: [Bool] = []
        answers.append(topics.insert("x"))
        answers.append(topics.insert("x"))
        #expect(topics.set == ["x"])
        answers.append(topics.remove("y"))
        answers.append(topics.insert("y"))
        #expect(topics.count == 2)
        answers.append(topics.remove("x"))
        #expect(topics.set == ["y"])
        #expect(!topics.contains("x"))
        answers.append(topics.remove("y"))
        #expect(topics.isEmpty)
        answers.append(topics.remove("y"))
        #expect(answers == [true, false, false, true, true, true, false])
    }
}
