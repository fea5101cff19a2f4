// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore
import WebSocketTransport

/// The exit statuses of `websocket connect` (and of the other commands where they apply).
enum ExitStatus: Int32 {
    /// The connection closed cleanly with 1000.
    case normalClosure = 0
    /// The connection closed cleanly with another code (1001, 4000…), or none (1005).
    case otherCloseCode = 1
    /// Bad arguments or URL, or text to send that is not UTF-8.
    case usage = 2
    /// No connection: the host did not resolve, the connection was refused or unreachable, or
    /// connecting timed out.
    case connectFailed = 3
    /// The opening handshake failed: refused with an HTTP status, an invalid response, or no answer
    /// in time.
    case handshakeFailed = 4
    /// The peer violated the protocol: the connection was failed with 1002, 1007 or 1009.
    case protocolError = 5
    /// The connection ended abnormally (1006): lost without a Close, close or keepalive timeout, a
    /// socket error.
    case abnormalClosure = 6

    /// The status for how a connection ended.
    init(_ status: Connection.CloseStatus) {
        if status.failure?.protocolViolation != nil {
            self = .protocolError
        } else if status.failure != nil || !status.wasClean || status.code == .abnormalClosure {
            self = .abnormalClosure
        } else {
            self = status.code == .normalClosure ? .normalClosure : .otherCloseCode
        }
    }

    /// The status for an error from connecting.
    init(_ error: WebSocketError) {
        switch error {
        case .invalidURL, .tlsUnavailable, .invalidArgument, .connection, .eventHandlerInUse:
            self = .usage
        case .proxy(let error) where [.invalidURL, .invalidTarget, .invalidCredentials, .invalidHeader].contains(error.code):
            self = .usage
        case .addressResolutionFailed, .connectFailed, .bindFailed, .timedOut(.connect), .cancelled, .proxy:
            self = .connectFailed
        case .handshakeFailed, .tls, .redirectRefused, .tooManyRedirects:
            self = .handshakeFailed
        case .timedOut, .transport, .bufferFull, .proxyProtocol:
            self = .abnormalClosure
        case .closed(let status):
            self = ExitStatus(status)
        }
    }

    /// The table `websocket help` prints.
    static let table = """
        exit status of connect:
          0  closed cleanly with 1000
          1  closed cleanly with another code (1001, 4000…) or none
          2  usage error: bad arguments or URL, or a line of text input that is not UTF-8
          3  could not connect: unknown host, connection refused or unreachable, connect timeout
          4  opening handshake failed: refused (the HTTP status is printed), invalid response, timeout
          5  protocol error: the peer violated RFC 6455 (closed with 1002, 1007 or 1009)
          6  abnormal closure (1006): connection lost, close or keepalive timeout, socket error
        """
}

/// "1000 (normal closure)", "4000 \"reason\"": the core's description of the status.
func describe(_ status: Connection.CloseStatus) -> String { status.description }
