import Dispatch
import WebSocketCore

// Theory of operation
//
// A socket's state lives on its private serial queue. Every input (readable, writable, timer, a
// send, a handshake decision, a consumer taking a message) ends in `pump()`, which:
//
// 1. reports the time to the core (so that timers it arms start from now),
// 2. pulls the core's events and hands them to the consumer (handler, inbox or server),
// 3. writes the core's output until the socket would block (then the write source waits),
// 4. resumes sends waiting for buffer room once the buffer falls to the low-water mark,
// 5. closes the transport when the core says so (`shouldCloseTransport`), in three steps: flush the
//    last bytes, (server) shut down writing and read until the client closes, close the descriptor,
// 6. resumes or suspends reading (flow control toward the consumer) and re-arms the timer to the
//    earliest deadline: the core's `nextDeadline`, or the transport's own (connect, linger).
//
// The transport's phases, all on the socket's queue:
//
//   idle ──► connecting (client: one address at a time) ──► open ──► flushing ──► draining ──► closing ──► closed
//                 │ (every address failed)                   │ (server accepted fd starts here)    ▲
//                 └──────────────────────────────────────────┴─────────── cancel() ───────────────┘
//
// `closed` is final: the consumer got its last event, every waiter was resumed.

/// Where a socket's transport is.
enum TransportPhase {
    /// Not started yet.
    case idle
    /// (Client) A TCP connect to `addresses[index]` is in progress.
    case connecting(ConnectAttempt)
    /// Connected: bytes and events flow.
    case open
    /// The core said to close the transport; the last bytes are being written until `deadline`.
    case flushing(deadline: Instant)
    /// (Server) Written and shut down for writing; reading (and discarding) until the peer closes or
    /// `deadline`, so that no unread byte turns our close into a reset that destroys what we wrote.
    case draining(deadline: Instant)
    /// The sources are cancelled; the descriptor closes when both have finished.
    case closing
    case closed
}

/// A client's TCP connect attempts.
struct ConnectAttempt {
    var addresses: [SocketAddress]
    var index: Int
    var deadline: Instant
}

/// Who receives a socket's events.
enum Consumer {
    /// The delegate-queue face: `handler` runs on `queue` (a serial queue targeting the user's).
    case handler(queue: DispatchQueue, WebSocket.EventHandler)
    /// The async face: messages wait in the inbox for ``WebSocket/messages``.
    case inbox(MessageInbox)
    /// (Server) The opening handshake, before the socket is handed to the server's user.
    case server(ServerContext)
    /// The handler got its last event and was released.
    case finished
}

/// How a connection ended, once its socket is closed.
enum Ending {
    /// It had opened.
    case closed(CloseStatus)
    /// It never opened.
    case failed(WebSocketError)

    var event: WebSocketEvent {
        switch self {
        case .closed(let status): return .closed(status)
        case .failed(let error): return .failed(error)
        }
    }

    /// The error a waiting send or a message iterator gets.
    var error: WebSocketError {
        switch self {
        case .closed(let status): return .closed(status)
        case .failed(let error): return error
        }
    }
}

/// An async send waiting for buffer room.
struct PendingSend {
    var message: WebSocketMessage
    var waiter: Waiter<Void>
}

extension WebSocketEvent {
    /// The payload bytes the event holds, counted against ``TransportOptions/maxUndeliveredBytes``.
    var payloadSize: Int {
        switch self {
        case .text(let text): return text.utf8.count
        case .binary(let bytes), .ping(let bytes), .pong(let bytes): return bytes.count
        case .fragment(let fragment): return fragment.bytes.count
        case .open, .closeReceived, .drained, .closed, .failed: return 0
        }
    }
}
