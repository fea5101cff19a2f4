#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import WebSocketCore
import WebSocketDeflate
import WebSocketPOSIX

/// `websocket connect URL`: standard input lines become text messages, received messages go to
/// standard output; the exit status tells how the connection ended (``ExitStatus``).
enum ConnectCommand {
    static func run(_ arguments: [String]) throws(UsageError) -> Never {
        let parsed = try Arguments(arguments, flags: ["--echo", "--deflate"],
                                   options: ["--subprotocol", "--header", "--max-message-size", "--max-frame-size"])
        guard parsed.positional.count == 1, let url = parsed.positional.first else {
            throw UsageError(message: parsed.positional.isEmpty ? "connect needs a URL" : "connect takes one URL")
        }
        var headers = HTTPHeaders()
        for header in parsed.values("--header") {
            guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
                throw UsageError(message: "--header: expected 'Name: value', got \(String(reflecting: header))")
            }
            let value = header[header.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers.append(name: String(header[..<colon]), value: String(value))
        }
        var configuration = Configuration()
        if let size = try parsed.size("--max-message-size") { configuration.limits.maxMessageSize = size }
        if let size = try parsed.size("--max-frame-size") { configuration.limits.maxFrameSize = size }
        if parsed.flags.contains("--deflate") { configuration.extensions = [PerMessageDeflate()] }

        let socket: BlockingWebSocket
        do throws(WebSocketError) {
            socket = try BlockingWebSocket.connect(to: url, subprotocols: parsed.values("--subprotocol"),
                                                   headers: headers, configuration: configuration)
        } catch {
            printError("websocket: \(error)")
            exitProcess(ExitStatus(error).rawValue)
        }
        var connected = "connected to \(url)"
        if let subprotocol = socket.subprotocol { connected += ", subprotocol \(subprotocol)" }
        for ext in socket.handshake.extensions { connected += ", extension \(ext.name)" }
        printError(connected)

        if parsed.flags.contains("--echo") {
            receiveUntilClosed(socket, echo: true)
        }
        DispatchQueue.global().async { @Sendable in receiveUntilClosed(socket, echo: false) }
        while let line = readLine(strippingNewline: true) {
            do throws(WebSocketError) {
                try socket.send(text: line)
            } catch {
                break   // the connection is ending: the receiving side reports how, and exits
            }
        }
        // End of input: start the closing handshake; the receiving side prints what still arrives,
        // and exits the process once the handshake is over and the socket closed.
        _ = try? socket.sendClose()
        while true { pause() }
    }

    /// Prints (and with `echo`, sends back) every message; at the end prints how the connection
    /// ended and exits with the matching status.
    private static func receiveUntilClosed(_ socket: BlockingWebSocket, echo: Bool) -> Never {
        while true {
            let message: WebSocketMessage?
            do throws(WebSocketError) {
                message = try socket.receive()
            } catch {
                continue   // only a receive timeout lands here, and none is set
            }
            guard let message else { break }
            switch message {
            case .text(let text):
                printOut(text)
                if echo { try? socket.send(text: text) }
            case .binary(let bytes):
                printOut("binary: " + hex(bytes))
                if echo { try? socket.send(binary: bytes) }
            case .fragment, .ping, .pong, .close:
                break
            }
        }
        // receive() returned nil: the socket is closed, and the status known.
        guard let status = socket.closeStatus else { exitProcess(ExitStatus.abnormalClosure.rawValue) }
        var line = "closed: \(describe(status))"
        if let failure = socket.transportFailure { line += " (\(failure))" }
        printError(line)
        exitProcess(ExitStatus(status).rawValue)
    }
}
