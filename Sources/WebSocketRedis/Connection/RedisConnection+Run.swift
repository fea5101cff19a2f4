// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore
import WebSocketTransport

// Theory of operation
//
// One thread per connection owns the socket (and its TLS layer): it connects, writes what the
// `RedisClient` queues, reads what arrives into it, and hands the client's events to the handler,
// outside the lock. Other threads touch only the client, under `shared`'s lock (a publish queues
// bytes in it), and wake the thread through the pipe it polls with the socket. Between connections
// `shared.client` is nil, so that a publish meanwhile is refused and counted, never queued for a
// connection that may not come: Redis keeps nothing for later either.

extension RedisConnection {
    /// What the thread keeps across connections.
    struct Series {
        /// Attempts since the last ready connection.
        var attempt = 0
        /// When the last ready connection was lost, `nil` while connected or before the first.
        var cutSince: Connection.Instant?
    }

    /// The connection's thread: connects again and again until stopped.
    func run(wake: WakeSignal) {
        var generator = SystemRandomNumberGenerator()
        var series = Series()
        while isRunning {
            guard let error = runConnection(wake: wake, series: &series), isRunning else { break }
            series.attempt += 1
            let delay = options.reconnect.delay(beforeAttempt: series.attempt, using: &generator)
            handler(.disconnected(error, retryingIn: delay))
            let deadline = system.monotonicNow() + delay
            _ = shared.wait(until: { $0.phase != .running }, deadline: deadline, now: system.monotonicNow)
        }
        shared.withLock { state in
            state.client = nil
            state.phase = .ended
        }
        shared.broadcast()
    }

    private var isRunning: Bool { shared.withLock { $0.phase == .running } }

    /// One connection, from the connect to its end: the error that ended it, or `nil` when stopped.
    private func runConnection(wake: WakeSignal, series: inout Series) -> RedisError? {
        let started = system.monotonicNow()
        var stream: RedisStream
        do throws(RedisError) {
            stream = try RedisStream.connect(to: endpoint, tls: options.tls, deadline: started + options.connectTimeout,
                                             readBufferSize: options.readBufferSize, system: system)
        } catch {
            shared.withLock { $0.statistics.failedAttempts += 1 }
            return error
        }
        shared.withLock { state in
            var client = RedisClient(endpoint: endpoint, role: role, channels: state.subscriptions, sharded: options.sharded,
                                     usesHello: options.usesHello, limits: options.limits)
            client.start()
            state.client = client
        }
        var ready = false
        let handshakeDeadline = system.monotonicNow() + options.handshakeTimeout
        var nextPing: Connection.Instant? = nil
        var pollSet = [pollfd(fd: stream.socket.descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]

        /// Ends this connection: counts it, and says why.
        func end(_ error: RedisError?) -> RedisError? {
            let now = system.monotonicNow()
            shared.withLock { state in
                state.client = nil
                guard error != nil else { return }
                if ready {
                    state.statistics.disconnections += 1
                } else {
                    state.statistics.failedAttempts += 1
                }
            }
            if ready { series.cutSince = now }
            return error
        }

        while true {
            // The client's output is taken only once the socket took the last: bytes a slow server
            // does not read stay in the client, where `maxOutputBytes` refuses more.
            let takesOutput = !stream.hasUnwritten
            let (events, output, stopping) = shared.withLock { state -> ([RedisClient.Event], [UInt8], Bool) in
                var events: [RedisClient.Event] = []
                while let event = state.client?.nextEvent() {
                    if case .message = event { state.statistics.messagesReceived += 1 }
                    events.append(event)
                }
                return (events, takesOutput ? state.client?.takeOutput() ?? [] : [], state.phase != .running)
            }
            if stopping { return end(nil) }
            stream.queue(output)
            for event in events {
                switch event {
                case .ready(let version):
                    let now = system.monotonicNow()
                    ready = true
                    nextPing = options.pingInterval.map { now + $0 }
                    let outage = series.cutSince.map { now - $0 }
                    series = Series()
                    shared.withLock { state in
                        state.statistics.connections += 1
                        if let outage { state.statistics.timeCutOff += outage }
                    }
                    handler(.connected(protocolVersion: version, outage: outage))
                case .message(let channel, let payload):
                    handler(.message(channel: String(decoding: channel, as: UTF8.self), payload: payload))
                case .failed(let error):
                    return end(error)
                case .subscribed(let channel):
                    handler(.subscribed(channel: String(decoding: channel, as: UTF8.self)))
                case .unsubscribed, .published, .pong:
                    break
                }
            }
            do throws(RedisError) {
                try stream.write()
            } catch {
                return end(error)
            }

            let now = system.monotonicNow()
            if !ready && now >= handshakeDeadline {
                return end(RedisError(.timedOut, reason: "no login within \(options.handshakeTimeout)"))
            }
            if ready, let ping = nextPing, now >= ping, let interval = options.pingInterval {
                let alive = shared.withLock { state -> Bool in
                    guard state.client?.unansweredPings == 0 else { return false }
                    do throws(RedisError) {
                        try state.client?.ping()
                    } catch {
                        state.client?.fail(error)
                    }
                    return true
                }
                if !alive { return end(RedisError(.timedOut, reason: "no reply to PING within \(interval)")) }
                nextPing = now + interval
                continue
            }

            pollSet[0].events = Int16(POLLIN) | (stream.hasUnwritten ? Int16(POLLOUT) : 0)
            pollSet[0].revents = 0
            pollSet[1].revents = 0
            do throws(Errno) {
                _ = try Poller.poll(&pollSet, deadline: ready ? nextPing : handshakeDeadline, system: system)
            } catch {
                return end(RedisError(.connectionClosed, reason: "poll: \(error)"))
            }
            if pollSet[1].revents != 0 { wake.drain() }
            guard pollSet[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 else { continue }
            do throws(RedisError) {
                let open = try stream.read { bytes in shared.withLock { $0.client?.receive(bytes) } }
                if !open { shared.withLock { $0.client?.receiveEOF() } }
            } catch {
                return end(error)
            }
        }
    }
}
