// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A bad command line: the message (one line, naming the option) is printed with where to find the
/// options, and the tool exits with 2.
struct UsageError: Error {
    var message: String
}

/// A parsed command line: `--name value` or `--name=value` options, `--flag`s, their short
/// spellings (`-H value`, `-b`), and positional arguments (all of them after `--`), checked against
/// the names a command knows.
struct Arguments {
    private(set) var options: [(name: String, value: String)] = []
    private(set) var flags: Set<String> = []
    private(set) var positional: [String] = []

    /// Short spellings of long flags and options.
    static let shortNames: [String: String] = [
        "-k": "--insecure", "-1": "--one-message", "-b": "--binary", "-n": "--no-close", "-H": "--header", "-h": "--help",
    ]
    /// Second spellings: the value is recorded under the first name, so that `values` keeps the
    /// order in which both were given.
    static let aliases: [String: String] = ["--subprotocol": "--protocol"]

    init(_ arguments: some Sequence<String>, flags knownFlags: Set<String>, options knownOptions: Set<String>) throws(UsageError) {
        let knownFlags = knownFlags.union(["--help"])
        var iterator = arguments.makeIterator()
        var onlyPositional = false
        while var argument = iterator.next() {
            if onlyPositional {
                positional.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositional = true
                continue
            }
            if let long = Self.shortNames[argument], knownFlags.contains(long) || knownOptions.contains(long) { argument = long }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                if argument.hasPrefix("-"), argument.count > 1 { throw UsageError(message: "unknown option \(argument)") }
                positional.append(argument)
                continue
            }
            var name = argument
            var value: String? = nil
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            name = Self.aliases[name].flatMap { knownOptions.contains($0) ? $0 : nil } ?? name
            if knownFlags.contains(name) {
                guard value == nil else { throw UsageError(message: "\(name) takes no value") }
                flags.insert(name)
            } else if knownOptions.contains(name) {
                guard let given = value ?? iterator.next() else { throw UsageError(message: "\(name) needs a value") }
                options.append((name, given))
            } else {
                throw UsageError(message: "unknown option \(name)")
            }
        }
    }

    /// Whether the flag `name` was given.
    func has(_ name: String) -> Bool { flags.contains(name) }

    /// Every value given for `name`, in order.
    func values(_ name: String) -> [String] { options.filter { $0.name == name }.map(\.value) }

    /// The last value given for `name`.
    func value(_ name: String) -> String? { options.last { $0.name == name }?.value }

    /// The last value given for `name`, as a byte count (digits with an optional K, M or G suffix,
    /// powers of 1024).
    func size(_ name: String) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        var digits = Substring(text)
        var multiplier = 1
        switch digits.last {
        case "k"?, "K"?: multiplier = 1 << 10
        case "m"?, "M"?: multiplier = 1 << 20
        case "g"?, "G"?: multiplier = 1 << 30
        default: break
        }
        if multiplier != 1 { digits = digits.dropLast() }
        guard let count = Int(digits), count > 0, count <= Int.max / multiplier else {
            throw UsageError(message: "\(name): expected a size in bytes (like 1048576, 64K or 16M), got \(String(reflecting: text))")
        }
        return count * multiplier
    }

    /// The last value given for `name`, as a count (digits, at least `minimum`).
    func count(_ name: String, minimum: Int = 0) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let count = Int(text), count >= minimum else {
            throw UsageError(message: "\(name): expected a whole number of at least \(minimum), got \(String(reflecting: text))")
        }
        return count
    }

    /// The last value given for `name`, as a duration in seconds (`2`, `0.5`), or milliseconds with
    /// an `ms` suffix (`500ms`).
    func seconds(_ name: String) throws(UsageError) -> Duration? {
        guard let text = value(name) else { return nil }
        if text.hasSuffix("ms"), let milliseconds = Int(text.dropLast(2)), milliseconds >= 0 {
            return .milliseconds(milliseconds)
        }
        guard let seconds = Double(text), seconds >= 0, seconds <= 86_400 * 365 else {
            throw UsageError(message: "\(name): expected seconds (like 2, 0.5 or 500ms), got \(String(reflecting: text))")
        }
        return .milliseconds(Int(seconds * 1000))
    }
}
