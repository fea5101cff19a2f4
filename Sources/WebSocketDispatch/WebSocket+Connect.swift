import Dispatch
import WebSocketCore

extension WebSocket {
    /// (Client) Resolves the host and starts the first connect attempt. On the queue.
    func startConnecting(host: String, port: UInt16) {
        guard case .idle = transport else { return }
        let addresses: [SocketAddress]
        do {
            addresses = try SocketAddress.resolve(host: host, port: port)
        } catch {
            connectFailure = .addressResolutionFailed(code: error.code, message: error.message)
            finish()
            return
        }
        startConnecting(to: addresses)
    }

    /// (Client) Tries `addresses` in order until one accepts a TCP connection. On the queue.
    func startConnecting(to addresses: [SocketAddress]) {
        guard case .idle = transport else { return }
        makeTimer()
        attemptConnect(ConnectAttempt(addresses: addresses, index: 0, deadline: MonotonicClock.now()))
    }

    /// Tries `attempt.addresses[attempt.index]`, or fails with `lastError` when none is left.
    private func attemptConnect(_ attempt: ConnectAttempt, lastError: WebSocketError? = nil) {
        guard attempt.index < attempt.addresses.count else {
            connectFailure = lastError ?? .connectTimedOut
            finish()
            return
        }
        let address = attempt.addresses[attempt.index]
        let fd: Int32
        switch Socket.makeStream(family: address.family, noDelay: options.noDelay) {
        case .failure(let error):
            var next = attempt
            next.index += 1
            attemptConnect(next, lastError: .connectFailed(error))
            return
        case .success(let socket):
            fd = socket
        }
        sources = makeSources(fd: fd)
        var current = attempt
        current.deadline = MonotonicClock.now() + options.connectTimeout
        transport = .connecting(current)
        switch Socket.connect(fd, to: address) {
        case .connected:
            didConnect()
        case .inProgress:
            updateInterest()
            rearmTimer()
        case .failed(let code):
            abandonAttempt(.connectFailed(SystemError(code)))
        }
    }

    /// Closes the current attempt's socket and tries the next address.
    func abandonAttempt(_ error: WebSocketError) {
        guard case .connecting(var attempt) = transport else { return }
        sources?.close { }
        sources = nil
        attempt.index += 1
        attemptConnect(attempt, lastError: error)
    }

    /// TCP is connected: the opening handshake starts (its timer too, at this first time report).
    func didConnect() {
        transport = .open
        pump()
    }

    /// (Server) Starts a connection on an accepted descriptor. On the queue.
    func startServing(fd: Int32) {
        guard case .idle = transport else { return }
        makeTimer()
        sources = makeSources(fd: fd)
        transport = .open
        pump()
    }
}
