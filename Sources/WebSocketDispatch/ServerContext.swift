import Dispatch
import WebSocketTransport

/// What a server's connections need from their server during the opening handshake: who decides on
/// the request, and where the socket goes once open.
struct ServerContext: Sendable {
    /// Where ``decide`` runs.
    var decisionQueue: DispatchQueue
    var decide: @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision
    var handOff: HandOff

    enum HandOff: Sendable {
        /// Every connection's events go to this handler, on this queue.
        case handler(DispatchQueue, WebSocket.EventHandler)
        /// Open sockets wait in ``WebSocketServer/connections``.
        case stream(PendingConnections)
    }

    /// The connection ended before its handshake succeeded.
    func connectionEndedBeforeOpening() {
        guard case .stream(let pending) = handOff else { return }
        pending.queue.async { pending.endedBeforeOpening() }
    }
}

extension WebSocket {
    /// (Server) Starts a connection on a socket the server accepted.
    static func serve(_ socket: Socket, configuration: Connection.Configuration, options: TransportOptions,
                      context: ServerContext, system: SystemCalls) {
        guard let pipeline = try? ConnectionPipeline.server(configuration: configuration, transport: options) else {
            // Only a TLS layer can fail to be made, and the server checked that it can be.
            socket.close()
            context.connectionEndedBeforeOpening()
            return
        }
        let webSocket = WebSocket(pipeline: pipeline, options: options, consumer: .server(context), system: system)
        webSocket.queue.async { webSocket.startServing(socket) }
    }

    /// (Server) Asks the server's user about the request on their queue, then applies the answer
    /// on the socket's queue.
    func askForDecision(_ request: Connection.HandshakeRequest) {
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
    private func apply(_ decision: Connection.HandshakeDecision) {
        guard pipeline.connection.pendingHandshakeRequest != nil else { return }  // timed out meanwhile
        pipeline.advanceTime(to: system.monotonicNow())
        try? pipeline.connection.respond(to: decision)
        pump()
    }

    /// (Server) The handshake succeeded: the socket now reports to the server's handler, or waits in
    /// ``WebSocketServer/connections`` with an inbox for ``messages``.
    func handOff(to context: ServerContext) {
        switch context.handOff {
        case .handler(let queue, let handler):
            consumer = .handler(queue: DispatchQueue(label: "WebSocket.events", target: queue), handler)
        case .stream(let pending):
            consumer = .inbox(MessageInbox())
            pending.queue.async { pending.opened(self) }
        }
    }
}
