import Dispatch
import WebSocketTransport

// Theory of operation
//
// A socket's state lives on its private serial queue. Every input (readable, writable, timer, a
// send, a handshake decision, a consumer taking a message) ends in `pump()`, which:
//
// 1. reports the time to the pipeline (so that timers it arms start from now),
// 2. pulls the connection's events and hands them to the consumer (handler, inbox or server),
// 3. moves output down the pipeline's layers and writes it until the socket would block (then the
//    write source waits),
// 4. resumes sends waiting for buffer room once the buffer falls to the low-water mark,
// 5. obeys the pipeline's socket directive, the same one the POSIX adapter obeys: stay open; shut
//    down the sending side once everything is written, then drain until the peer closes or the
//    linger deadline; or close the socket,
// 6. resumes or suspends reading (flow control toward the consumer) and re-arms the timer to the
//    earliest deadline: the connection's, the connect attempt's, or a stalled write's.
//
// The transport's phases, all on the socket's queue:
//
//   idle ──► connecting (client: one address at a time) ──► open ──► closing ──► closed
//                 │ (every address failed, or timed out)      │ (a server's accepted socket starts here)
//                 └───────────────────────────────────────────┴── cancel() ──► closing
//
// `closed` is final: the consumer got its last event, every waiter was resumed.

/// Where a socket's transport is.
enum TransportPhase {
    /// Not started yet.
    case idle
    /// (Client) A TCP connect to `addresses[index]` is in progress.
    case connecting(ConnectAttempt)
    /// Connected: bytes and events flow, and the pipeline's directive says when to half-close,
    /// drain and close.
    case open
    /// The sources are cancelled; the descriptor closes when both have finished.
    case closing
    case closed
}

/// A client's TCP connect attempts.
struct ConnectAttempt {
    var addresses: [SocketAddress]
    var index: Int
    /// When connecting gives up, over all addresses (``TransportOptions/connectTimeout``).
    var deadline: Connection.Instant?
    var isUnixSocket: Bool
}

/// Who receives a socket's events.
enum Consumer {
    /// The delegate-queue face: `handler` runs on `queue` (a serial queue targeting the user's).
    case handler(queue: DispatchQueue, WebSocket.EventHandler)
    /// The async face: messages wait in the inbox for ``WebSocket/messages``.
    case inbox(MessageInbox)
    /// (Server) The opening handshake is under way; the server's context says who decides, and where
    /// the socket goes once open.
    case server(ServerContext)
    /// The last event was delivered.
    case finished
}

/// How a connection ended, once its socket is closed.
enum Ending {
    /// It had opened.
    case closed(Connection.CloseStatus)
    /// It never opened.
    case failed(WebSocketError)

    var event: WebSocketEvent {
        switch self {
        case .closed(let status): return .closed(status)
        case .failed(let error): return .failed(error)
        }
    }

    /// The error a waiting send, ping or message iterator gets.
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
