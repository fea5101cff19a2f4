// The `websocket` command-line tool. With no arguments it runs the in-memory demo.
let arguments = Array(CommandLine.arguments.dropFirst())

switch arguments.first {
case nil, "demo":
    InMemoryDemo.run()
case "-h", "--help", "help":
    print(usage)
default:
    printError("websocket: unknown command '\(arguments[0])'\n\(usage)")
    exitProcess(2)
}
