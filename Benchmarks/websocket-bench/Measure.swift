// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import EchoServerSupport

/// Timing helpers: best of several runs, each long enough to swamp the clock's resolution.
enum Measure {
    /// Runs `body` (which does `work` units per call) repeatedly and returns the best rate in units per
    /// second over `runs` runs of about `seconds` each.
    static func rate(work: Double, runs: Int = 5, seconds: Double = 0.15, _ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        // Warm up and calibrate.
        var iterations = 1
        while true {
            let elapsed = clock.measure { for _ in 0..<iterations { body() } }
            if elapsed.seconds >= seconds / 4 || iterations >= 1 << 24 { break }
            iterations *= 2
        }
        var best = 0.0
        for _ in 0..<runs {
            let elapsed = clock.measure { for _ in 0..<iterations { body() } }
            best = max(best, work * Double(iterations) / max(elapsed.seconds, 1e-9))
        }
        return best
    }

    /// Like ``rate(work:runs:seconds:_:)`` for two bodies doing the same work, measured in alternation
    /// (a, b, a, b, …) so that a change in the machine's load hits both: the best rate of each.
    static func interleaved(work: Double, runs: Int = 9, seconds: Double = 0.1,
                            _ a: () -> Void, _ b: () -> Void) -> (a: Double, b: Double) {
        var best = (a: 0.0, b: 0.0)
        for _ in 0..<runs {
            best.a = max(best.a, rate(work: work, runs: 1, seconds: seconds, a))
            best.b = max(best.b, rate(work: work, runs: 1, seconds: seconds, b))
        }
        return best
    }

    /// For work that runs on other threads and counts itself: after `warmUp` seconds, samples
    /// `count()` over `runs` windows of `seconds` each and returns the best rate in units per second.
    static func sampledRate(warmUp: Double = 0.3, runs: Int = 3, seconds: Double = 0.4, _ count: () -> Int) -> Double {
        let clock = ContinuousClock()
        sleep(seconds: warmUp)
        var best = 0.0
        for _ in 0..<runs {
            let (start, before) = (clock.now, count())
            sleep(seconds: seconds)
            let (end, after) = (clock.now, count())
            best = max(best, Double(after - before) / max((end - start).seconds, 1e-9))
        }
        return best
    }
}

extension Duration {
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}

/// Keeps the optimizer from deleting work whose result is otherwise unused.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

func formatRate(_ bytesPerSecond: Double) -> String {
    if bytesPerSecond >= 1e9 { return String(format3(bytesPerSecond / 1e9)) + " GB/s" }
    return String(format3(bytesPerSecond / 1e6)) + " MB/s"
}

func format3(_ x: Double) -> String {
    let scaled = (x * 100).rounded() / 100
    return String(scaled)
}

func report(_ name: String, ours: String, baselineName: String, theirs: String, ratio: Double) {
    print("\(name): \(ours), baseline \(baselineName) \(theirs), ratio \(format3(ratio))")
}
