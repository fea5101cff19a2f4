// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import WebSocketTransport

@Suite("What a server does after accept failed")
struct AcceptFailureTests {
    @Test("One connection's failure is skipped, a shortage pauses, a broken listener stops, the unknown pauses")
    func decisions() {
        for skipped in [EINTR, EAGAIN, ECONNABORTED, EPROTO, EPERM, ENETDOWN, ENOPROTOOPT, EHOSTDOWN, EHOSTUNREACH, EOPNOTSUPP,
                        ENETUNREACH] {
            #expect(AcceptFailure(Errno(rawValue: skipped)) == .skip, "errno \(skipped)")
        }
        for shortage in [EMFILE, ENFILE, ENOBUFS, ENOMEM] {
            #expect(AcceptFailure(Errno(rawValue: shortage)) == .pause, "errno \(shortage)")
        }
        for broken in [EBADF, EINVAL, ENOTSOCK] {
            #expect(AcceptFailure(Errno(rawValue: broken)) == .stop, "errno \(broken)")
        }
        #expect(AcceptFailure(Errno(rawValue: EIO)) == .pause)
        #expect(AcceptFailure.pauseLength == .milliseconds(100))
    }
}
