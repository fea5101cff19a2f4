// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// One element of a `Sec-WebSocket-Extensions` header (RFC 6455 §9.1): an extension name and its
    /// parameters, in order, each with an optional value.
    public struct ExtensionHeader: Sendable, Hashable {
        /// One `name[=value]` parameter of an extension element, as in `client_max_window_bits=10`.
        public struct Parameter: Sendable, Hashable {
            /// The parameter's name, a token (RFC 9110 §5.6.2).
            public var name: String
            /// The parameter's value, unquoted; `nil` for a parameter without one.
            public var value: String?
            /// A parameter; `value` defaults to none.
            public init(name: String, value: String? = nil) {
                self.name = name
                self.value = value
            }
        }

        /// The extension's registered name, as in `permessage-deflate`.
        public var name: String
        /// The element's parameters, in the order written.
        public var parameters: [Parameter]

        /// An element; `parameters` defaults to none.
        public init(name: String, parameters: [Parameter] = []) {
            self.name = name
            self.parameters = parameters
        }
    }
}
