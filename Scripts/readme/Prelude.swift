// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Compiled with each of the README's Swift snippets (Scripts/check-readme.sh): the stand-ins the
// sans-I/O sketch names. Nothing here is part of the library.

/// The transport a sans-I/O example is embedded in: yours.
struct YourSocket {
    func read() -> [UInt8] { [] }
    func write(_ bytes: [UInt8]) {}
    func close() {}
}
