import Dispatch
import WebSocketCore

/// What a server's connections need from their server during the opening handshake: who decides on
/// the request, and where the socket goes once open.
struct ServerContext: Sendable {
    /// Where ``decide`` runs.
    var decisionQueue: DispatchQueue
    var decide: @Sendable (HandshakeRequest) -> HandshakeDecision
    var handOff: HandOff

    enum HandOff: Sendable {
        /// Every connection's events go to this handler, on this queue.
        case handler(DispatchQueue, WebSocket.EventHandler)
        /// Open sockets are yielded to ``WebSocketServer/connections``.
        case stream(AsyncStream<WebSocket>.Continuation)
    }
}

extension WebSocket {
    /// (Server) Starts a connection on a descriptor the server accepted.
    static func serve(fd: Int32, configuration: Configuration, options: TransportOptions, context: ServerContext) {
        let socket: WebSocket
        do {
            socket = try WebSocket(role: .server, configuration: configuration, options: options,
                                   consumer: .server(context))
        } catch {
            // A server connection has no client options to refuse; nothing can throw here.
            Socket.close(fd)
            return
        }
        socket.queue.async { socket.startServing(fd: fd) }
    }

    /// (Server) Asks the server's user about the request on their queue, then applies the answer
    /// on the socket's queue.
    func askForDecision(_ request: HandshakeRequest) {
        guard case .server(let context) = consumer else {
            apply(.reject(status: 500))
            return
        }
        context.decisionQueue.async {
            let decision = context.decide(request)
            self.queue.async { self.apply(decision) }
        }
    }

    /// Accepts or rejects the pending request. An answer the core refuses becomes a 500 response.
    private func apply(_ decision: HandshakeDecision) {
        guard connection.pendingHandshakeRequest != nil else { return }  // timed out meanwhile
        connection.advanceTime(to: MonotonicClock.now())
        try? connection.respond(to: decision)
        pump()
    }

    /// (Server) The handshake succeeded: the socket now reports to the server's handler, or waits in
    /// ``WebSocketServer/connections`` with an inbox for ``messages``.
    func handOff(to context: ServerContext) {
        switch context.handOff {
        case .handler(let queue, let handler):
            consumer = .handler(queue: DispatchQueue(label: "WebSocket.events", target: queue), handler)
        case .stream(let continuation):
            consumer = .inbox(MessageInbox())
            switch continuation.yield(self) {
            case .enqueued:
                break
            case .dropped(let dropped):
                dropped.queue.async { dropped.abort() }
            case .terminated:
                queue.async { self.abort() }
            @unknown default:
                queue.async { self.abort() }
            }
        }
    }
}
