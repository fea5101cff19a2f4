// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// The `websocket` command-line tool. With no arguments it runs the in-memory demo, then a short one
// over real sockets.
let arguments = Array(CommandLine.arguments.dropFirst())

func runCommand(_ arguments: [String]) throws(UsageError) {
    let rest = Array(arguments.dropFirst())
    if let command = arguments.first, Help.commands.contains(command), rest.contains(where: { $0 == "--help" || $0 == "-h" }) {
        printOut(Help.text(for: command) ?? Help.overview)
        return
    }
    switch arguments.first {
    case nil, "demo":
        guard rest.isEmpty else { throw UsageError(message: "demo takes no argument \(rest[0])") }
        InMemoryDemo.run()
        LoopbackDemo.run()
    case "serve":
        try ServeCommand.run(rest)
    case "connect":
        try ConnectCommand.run(rest)
    case "autobahn-client":
        try AutobahnClient.run(rest)
    case "-h", "--help", "help":
        guard let topic = rest.first else { return printOut(Help.overview) }
        guard rest.count == 1, let text = Help.text(for: topic) else { throw UsageError(message: "no help for \(rest.joined(separator: " ")): the commands are \(Help.commands.joined(separator: ", "))") }
        printOut(text)
    case let command?:
        throw UsageError(message: "unknown command '\(command)'")
    }
}

do throws(UsageError) {
    try runCommand(arguments)
} catch {
    // One line that names what is wrong, and where the options are.
    let command = arguments.first.flatMap { Help.commands.contains($0) ? $0 : nil }
    printError("websocket: \(error.message)\n(websocket help\(command.map { " " + $0 } ?? "") lists the options)")
    exitProcess(ExitStatus.usage.rawValue)
}
