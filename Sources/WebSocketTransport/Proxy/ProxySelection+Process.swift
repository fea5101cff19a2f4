// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ProxySelection {
    /// A selection over this process's environment: the proxy variables ``ProxySelection`` reads, each
    /// read once now with `getenv` (a later `setenv` is not seen).
    public static func processEnvironment() -> ProxySelection {
        var environment: [String: String] = [:]
        for name in secureNames + plainNames + noProxyNames {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return ProxySelection(environment: environment)
    }
}
