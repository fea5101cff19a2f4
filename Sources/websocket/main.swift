// The `websocket` command-line tool. With no arguments it runs the in-memory demo, then a short one
// over real sockets.
let arguments = Array(CommandLine.arguments.dropFirst())

func runCommand(_ arguments: [String]) throws(UsageError) {
    switch arguments.first {
    case nil, "demo":
        InMemoryDemo.run()
        LoopbackDemo.run()
    case "serve":
        try ServeCommand.run(Array(arguments.dropFirst()))
    case "connect":
        try ConnectCommand.run(Array(arguments.dropFirst()))
    case "autobahn-client":
        try AutobahnClient.run(Array(arguments.dropFirst()))
    case "-h", "--help", "help":
        print(usage)
    case let command?:
        throw UsageError(message: "unknown command '\(command)'")
    }
}

do throws(UsageError) {
    try runCommand(arguments)
} catch {
    printError("websocket: \(error.message)\n\n\(usage)")
    exitProcess(ExitStatus.usage.rawValue)
}
