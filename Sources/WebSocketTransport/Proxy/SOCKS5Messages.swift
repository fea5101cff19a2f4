// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The client's messages of SOCKS5 (RFC 1928) and its username/password method (RFC 1929), as bytes.
enum SOCKS5Messages {
    static let version: UInt8 = 0x05
    static let noAuthentication: UInt8 = 0x00
    static let usernamePassword: UInt8 = 0x02
    static let noAcceptableMethods: UInt8 = 0xFF
    static let connect: UInt8 = 0x01
    static let authenticationVersion: UInt8 = 0x01

    /// RFC 1928 §3: `VER NMETHODS METHODS`. With credentials both methods are offered (the proxy
    /// may not need them), as curl does; without, only "no authentication required".
    static func greeting(offering methods: [UInt8]) -> [UInt8] {
        [version, UInt8(methods.count)] + methods
    }

    /// RFC 1929 §2: `VER ULEN UNAME PLEN PASSWD`, the version 1.
    static func authentication(user: [UInt8], password: [UInt8]) -> [UInt8] {
        [authenticationVersion, UInt8(user.count)] + user + [UInt8(password.count)] + password
    }

    /// RFC 1928 §4: `VER CMD RSV ATYP DST.ADDR DST.PORT`, CMD 1 (CONNECT): ATYP 1 (IPv4) or 4 (IPv6)
    /// for an address, 3 (a length byte and the name) for a name, which the proxy resolves.
    static func connectRequest(to target: TunnelTarget, port: UInt16) -> [UInt8] {
        var bytes: [UInt8] = [version, connect, 0x00]
        switch target {
        case .address(let address, _):
            bytes.append(address.isIPv6 ? 0x04 : 0x01)
            bytes += address.bytes
        case .name(let name):
            bytes.append(0x03)
            bytes.append(UInt8(name.utf8.count))
            bytes += name.utf8
        }
        bytes += [UInt8(port >> 8), UInt8(port & 0xFF)]
        return bytes
    }

    /// RFC 1929 §2: "ULEN ... 1 to 255", "PLEN ... 1 to 255". Checked before anything is sent.
    static func checkCredentials(_ credentials: ProxyCredentials) throws(ProxyError) {
        guard (1...255).contains(credentials.user.utf8.count) else {
            throw ProxyError(.invalidCredentials, reason: "a SOCKS5 user name is 1 to 255 bytes (RFC 1929 §2)")
        }
        guard (1...255).contains(credentials.password.utf8.count) else {
            throw ProxyError(.invalidCredentials, reason: "a SOCKS5 password is 1 to 255 bytes (RFC 1929 §2)")
        }
    }
}
