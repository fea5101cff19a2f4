// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore
import WebSocketDeflate
import WebSocketPOSIX

/// `websocket autobahn-client`: what every Autobahn|Testsuite client does against `wstest -m
/// fuzzingserver`: `/getCaseCount`, then `/runCase?case=I&agent=NAME` for each case, echoing every
/// message, then `/updateReports?agent=NAME`. All protocol behaviour is the library's.
enum AutobahnClient {
    static func run(_ arguments: [String]) throws(UsageError) -> Never {
        let parsed = try Arguments(arguments, flags: ["--deflate"], options: ["--url", "--agent"])
        guard parsed.positional.isEmpty else { throw UsageError(message: "autobahn-client takes no argument \(parsed.positional[0])") }
        let base = parsed.value("--url") ?? getenv("AUTOBAHN_URL").map { String(cString: $0) } ?? "ws://127.0.0.1:9001"
        let agent = parsed.value("--agent") ?? "swift-websocket"
        let root = base.hasSuffix("/") ? String(base.dropLast()) : base

        // The library's default limits, which every case passes: the largest messages (9.1.6, 9.2.6)
        // are 16 MiB, exactly the default frame and message limits, and the most fragmented (9.3.1,
        // 9.4.1) take 65,537 frames, well within the default fragment cap.
        var configuration = Connection.Configuration()
        if parsed.flags.contains("--deflate") { configuration.extensions = [PerMessageDeflate()] }
        var options = TransportOptions()
        options.receiveTimeout = .seconds(60)

        let count: Int
        do throws(WebSocketError) {
            let socket = try BlockingWebSocket.connect(to: root + "/getCaseCount", configuration: configuration, options: options)
            guard case .text(let text)? = try socket.receive(), let number = Int(text) else {
                printError("websocket: /getCaseCount did not answer with a number")
                exitProcess(1)
            }
            count = number
            try socket.close()
        } catch {
            printError("websocket: \(root)/getCaseCount: \(error)")
            exitProcess(ExitStatus(error).rawValue)
        }
        printError("\(count) cases")

        for index in 1...max(count, 1) where count > 0 {
            let url = "\(root)/runCase?case=\(index)&agent=\(agent)"
            do throws(WebSocketError) {
                let socket = try BlockingWebSocket.connect(to: url, configuration: configuration, options: options)
                while let message = try socket.receive() {
                    switch message {
                    case .text(let text): try? socket.send(text: text)
                    case .binary(let bytes): try? socket.send(binary: bytes)
                    case .fragment, .ping, .pong, .close: break
                    }
                }
                printError("case \(index)/\(count): closed \(socket.closeStatus.map(describe) ?? "")")
            } catch {
                printError("case \(index)/\(count): \(error)")
            }
        }

        do throws(WebSocketError) {
            let socket = try BlockingWebSocket.connect(to: "\(root)/updateReports?agent=\(agent)",
                                                       configuration: configuration, options: options)
            while try socket.receive() != nil {}
        } catch {
            printError("websocket: /updateReports: \(error)")
            exitProcess(1)
        }
        printError("reports updated for agent \(agent)")
        exitProcess(0)
    }
}
