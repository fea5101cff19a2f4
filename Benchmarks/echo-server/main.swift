// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// `websocket-echo-server serve-echo KIND [--port P]`: the echo servers of `websocket-bench serve-echo`,
// in a binary that links no TLS. Benchmarks/servers runs this one: a server built as a user would
// build one without wss (and as uWebSockets' anchor is built, without TLS) maps no OpenSSL, whose
// relocated pages alone were 392 KiB of private memory in websocket-bench.

import EchoServerSupport

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.first == "serve-echo" else {
    EchoServers.main([])  // prints the usage
}
EchoServers.main(Array(arguments.dropFirst()))
