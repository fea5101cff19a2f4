// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore
import WebSocketTransport

/// How received messages reach standard output.
enum OutputFormat: Sendable {
    /// Text as it is and binary as `binary: ` and lowercase hex, one message per line.
    case lines
    /// Every message's bytes as they are, each followed by a newline when `separated`.
    case raw(separated: Bool)
    /// One JSON object per event (open, text, binary, ping, pong, close), with the seconds since
    /// `start`: for scripts.
    case jsonLines(start: Connection.Instant)
}

/// Writes what a connection receives to standard output in the chosen ``OutputFormat``.
struct MessageOutput: Sendable {
    var format: OutputFormat

    /// Whether the connection should hand over pings, pongs and Close frames (only JSON lines show them).
    var wantsControlFrames: Bool {
        if case .jsonLines = format { return true }
        return false
    }

    func opened(url: String, subprotocol: String?, extensions: [String]) {
        guard case .jsonLines = format else { return }
        emit("open", [("url", JSON.string(url)), ("subprotocol", subprotocol.map(JSON.string) ?? "null"),
                      ("extensions", "[" + extensions.map(JSON.string).joined(separator: ",") + "]")])
    }

    /// A server's connection opened (`serve --jsonl`).
    func accepted(peer: String, resource: String, subprotocol: String?) {
        guard case .jsonLines = format else { return }
        emit("open", [("resource", JSON.string(resource)), ("subprotocol", subprotocol.map(JSON.string) ?? "null")], peer: peer)
    }

    /// `peer`: which of a server's connections (`serve --jsonl` adds it to each event).
    func received(_ message: WebSocketMessage, peer: String? = nil) {
        switch format {
        case .lines:
            switch message {
            case .text(let text): printOut(text)
            case .binary(let bytes): printOut("binary: " + hex(bytes))
            case .fragment, .ping, .pong, .close: break
            }
        case .raw(let separated):
            var bytes: [UInt8]
            switch message {
            case .text(let text): bytes = Array(text.utf8)
            case .binary(let payload): bytes = payload
            case .fragment, .ping, .pong, .close: return
            }
            if separated { bytes.append(UInt8(ascii: "\n")) }
            writeOut(bytes)
        case .jsonLines:
            switch message {
            case .text(let text): emit("text", [("data", JSON.string(text))], peer: peer)
            case .binary(let bytes): emit("binary", [("hex", JSON.string(hex(bytes)))], peer: peer)
            case .ping(let bytes): emit("ping", [("hex", JSON.string(hex(bytes)))], peer: peer)
            case .pong(let bytes): emit("pong", [("hex", JSON.string(hex(bytes)))], peer: peer)
            case .fragment, .close: break   // the close is reported with its outcome, by `closed`
            }
        }
    }

    func closed(_ status: Connection.CloseStatus, failure: String?, peer: String? = nil) {
        guard case .jsonLines = format else { return }
        var fields = [("code", "\(status.code.rawValue)"), ("reason", JSON.string(status.reason)),
                      ("clean", status.wasClean ? "true" : "false")]
        if let failure { fields.append(("error", JSON.string(failure))) }
        emit("close", fields, peer: peer)
    }

    /// A failure before any connection opened (with `--jsonl`, so that a script sees every outcome).
    func failed(_ error: String, peer: String? = nil) {
        guard case .jsonLines = format else { return }
        emit("error", [("error", JSON.string(error))], peer: peer)
    }

    private func emit(_ type: String, _ fields: [(String, String)], peer: String? = nil) {
        guard case .jsonLines(let start) = format else { return }
        var line = "{\"type\":\(JSON.string(type)),\"time\":\(JSON.seconds(monotonicNow() - start))"
        if let peer { line += ",\"peer\":\(JSON.string(peer))" }
        for (name, value) in fields { line += ",\(JSON.string(name)):\(value)" }
        printOut(line + "}")
    }
}

/// The little JSON the tool writes.
enum JSON {
    /// `text` as a JSON string: quotes, backslashes and control characters escaped (RFC 8259 §7).
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let digits = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A duration as seconds with six decimals (`0.012345`).
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let micro = String(max(0, attoseconds / 1_000_000_000_000))
        return "\(seconds)." + String(repeating: "0", count: max(0, 6 - micro.count)) + micro
    }
}
