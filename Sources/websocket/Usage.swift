#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let usage = """
    usage: websocket [demo]    a client and a server Connection talking through in-memory buffers
           websocket help      this text
    """

func printError(_ message: String) {
    var line = message
    if !line.hasSuffix("\n") { line += "\n" }
    // write(2) on descriptor 2: the C `stderr` global is shared mutable state to Swift 6.
    let bytes = Array(line.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
        if n <= 0 { break }
        offset += n
    }
}

func exitProcess(_ status: Int32) -> Never {
    exit(status)
}
