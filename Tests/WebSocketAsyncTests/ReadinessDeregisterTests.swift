// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import WebSocketAsync

/// A connection's descriptor leaves the readiness backend as it is closed (`deregister(_:closing:)`):
/// epoll is not told, because the close takes the descriptor out of its set. What the loop relies on
/// is checked against the kernel here, on each backend this platform has: once deregistered and
/// closed, a descriptor's token is never reported again, even when a new socket gets the same
/// number at once and is registered under another token.
@Suite("Readiness: descriptors deregistered as they close")
struct ReadinessDeregisterTests {
    enum Backend: String, Sendable, CustomTestStringConvertible {
        case poll, epoll
        var testDescription: String { rawValue }

        func make() throws -> any Readiness {
            switch self {
            case .poll: return try PollReadiness()
            case .epoll:
                #if os(Linux)
                return try EpollReadiness()
                #else
                preconditionFailure("epoll is Linux's")
                #endif
            }
        }
    }

    #if os(Linux)
    static let backends: [Backend] = [.poll, .epoll]
    #else
    static let backends: [Backend] = [.poll]
    #endif

    @Test("A closed descriptor's token is not reported again; its number, taken again, reports the new token",
          arguments: backends)
    func closedDescriptorIsForgotten(backend: Backend) throws {
        try closedDescriptorIsForgotten(on: backend.make())
    }

    private func closedDescriptorIsForgotten(on readiness: any Readiness) throws {
        for round in 0..<20 {
            let (old, oldPeer) = try socketPair()
            let oldToken = UInt64(2 * round + 1)
            try readiness.register(old, token: oldToken, interest: .readable)
            try send(oldPeer)
            #expect(reported(by: readiness).contains(oldToken), "round \(round): the first socket's readiness")

            // Bytes wait unread, and the peer is still open: readiness the old registration would
            // report again were it still there.
            try send(oldPeer)
            readiness.deregister(old, closing: true)
            close(old)

            let (new, newPeer) = try socketPair()
            defer {
                readiness.deregister(new, closing: true)
                close(new)
                close(newPeer)
                close(oldPeer)
            }
            let newToken = UInt64(2 * round + 2)
            try readiness.register(new, token: newToken, interest: .readable)
            try send(newPeer)
            // The peer of the closed socket hangs up too: nothing of it may come back.
            shutdown(oldPeer, Int32(SHUT_RDWR))
            let tokens = reported(by: readiness)
            #expect(tokens.contains(newToken), "round \(round): the new socket (descriptor \(new), was \(old))")
            #expect(!tokens.contains(oldToken), "round \(round): the closed socket's token came back: \(tokens)")
        }
    }

    /// The tokens one wait reports (without blocking: the readiness is there already).
    private func reported(by readiness: any Readiness) -> Set<UInt64> {
        var tokens = Set<UInt64>()
        readiness.wait(timeoutMilliseconds: 1000) { token, _ in tokens.insert(token) }
        return tokens
    }

    private func socketPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        #if os(Linux)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else { throw PairError.failed(errno) }
        return (fds[0], fds[1])
    }

    private func send(_ descriptor: Int32) throws {
        var byte: UInt8 = 0x2A
        guard write(descriptor, &byte, 1) == 1 else { throw PairError.failed(errno) }
    }

    enum PairError: Error { case failed(Int32) }
}
