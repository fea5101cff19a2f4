#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore

extension Socket {
    /// Why no connection was made.
    enum ConnectFailure: Error, Sendable, Hashable {
        /// The deadline passed before any address accepted.
        case timedOut
        /// Every address refused or failed; the error of the last attempt, and its address.
        case failed(SocketAddress, Errno)
    }

    /// Connects to the first of `addresses` that accepts, trying each in turn (the order
    /// `getaddrinfo` gave, which prefers what this host can reach). All attempts share `deadline`.
    static func connect(to addresses: [SocketAddress], deadline: Instant?, system: SystemCalls)
        -> Result<Socket, ConnectFailure>
    {
        var lastFailure = ConnectFailure.timedOut
        for address in addresses {
            do throws(Errno) {
                guard let socket = try connect(to: address, deadline: deadline, system: system) else {
                    return .failure(.timedOut)
                }
                return .success(socket)
            } catch {
                lastFailure = .failed(address, error)
            }
        }
        return .failure(lastFailure)
    }

    /// A non-blocking connect to one address, waited for with `poll`: `nil` when the deadline passes
    /// first. A connect interrupted by a signal goes on in the background (POSIX), so `EINTR` is
    /// waited for like `EINPROGRESS`, never retried (that would fail with `EALREADY`).
    static func connect(to address: SocketAddress, deadline: Instant?, system: SystemCalls) throws(Errno) -> Socket? {
        let socket = try Socket.stream(family: address.familyNumber, system: system)
        let result = address.withSockaddr { system.connect(socket.descriptor, $0, $1) }
        if result == 0 { return socket }
        let error = Errno.current
        switch error {
        case .inProgress, .interrupted, .alreadyInProgress:
            guard try socket.wait(for: Int16(POLLOUT), deadline: deadline) else { return nil }
            if let failure = try socket.takePendingError() { throw failure }
            return socket
        case .isConnected:
            return socket
        default:
            throw error
        }
    }
}
