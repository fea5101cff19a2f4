#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Socket {
    /// A listening socket bound to `address` (with `SO_REUSEADDR` for IP addresses, so that a
    /// restarted server can bind while old connections linger in TIME_WAIT).
    package static func listening(on address: SocketAddress, backlog: Int32, system: SystemCalls) throws(Errno) -> Socket {
        let socket = try Socket.stream(family: address.familyNumber, system: system)
        if address.family != .unix {
            try socket.setOption(level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
        }
        guard address.withSockaddr({ system.bind(socket.descriptor, $0, $1) }) == 0 else { throw .current }
        guard system.listen(socket.descriptor, backlog) == 0 else { throw .current }
        return socket
    }

    /// Accepts a pending connection, without waiting: `nil` when there is none (`EAGAIN`), or when it
    /// was aborted before being accepted (`ECONNABORTED`). `EINTR` is retried. The new socket is
    /// non-blocking and close-on-exec, like every socket of this module.
    package func accept() throws(Errno) -> Socket? {
        guard !isClosed else { throw .badFileDescriptor }
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { system.accept(descriptor, $0, &length) }
            }
            if fd >= 0 {
                let socket = Socket(adopting: fd, system: system)
                try socket.configureNewDescriptor()
                return socket
            }
            let error = Errno.current
            switch error {
            case .interrupted: continue
            case .wouldBlock, .connectionAborted: return nil
            default: throw error
            }
        }
    }
}
