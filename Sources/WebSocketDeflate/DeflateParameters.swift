// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// The four permessage-deflate parameters of one offer or response, validated (RFC 7692 §7.1).
struct DeflateParameters: Sendable, Hashable {
    var serverNoContextTakeover = false
    var clientNoContextTakeover = false
    var serverMaxWindowBits: Int? = nil
    /// `.some(nil)`: present without a value (offers only).
    var clientMaxWindowBits: Int?? = nil

    /// Parses and validates the parameters: RFC 7692 §7.1 says an offer or response with an unknown
    /// parameter, a repeated one, or a value out of range is invalid (a server declines such an
    /// offer; a client fails on such a response).
    static func parse(_ element: Connection.ExtensionHeader, isResponse: Bool) -> Result<DeflateParameters, Connection.ExtensionNegotiationError> {
        var params = DeflateParameters()
        var seen: Set<String> = []
        for parameter in element.parameters {
            let name = parameter.name.lowercased()
            guard seen.insert(name).inserted else {
                return .failure(Connection.ExtensionNegotiationError("repeated parameter \(parameter.name)"))
            }
            switch name {
            case "server_no_context_takeover":
                guard parameter.value == nil else { return .failure(Connection.ExtensionNegotiationError("\(name) takes no value")) }
                params.serverNoContextTakeover = true
            case "client_no_context_takeover":
                guard parameter.value == nil else { return .failure(Connection.ExtensionNegotiationError("\(name) takes no value")) }
                params.clientNoContextTakeover = true
            case "server_max_window_bits":
                // RFC 7692 §7.1.2.1: a value is required, an integer from 8 to 15.
                guard let bits = windowBits(parameter.value) else {
                    return .failure(Connection.ExtensionNegotiationError("server_max_window_bits needs a value from 8 to 15"))
                }
                params.serverMaxWindowBits = bits
            case "client_max_window_bits":
                // RFC 7692 §7.1.2.2: without a value in an offer; with one (8 to 15) in a response.
                if let value = parameter.value {
                    guard let bits = windowBits(value) else {
                        return .failure(Connection.ExtensionNegotiationError("client_max_window_bits must be from 8 to 15"))
                    }
                    params.clientMaxWindowBits = .some(bits)
                } else {
                    guard !isResponse else {
                        return .failure(Connection.ExtensionNegotiationError("client_max_window_bits needs a value in a response"))
                    }
                    params.clientMaxWindowBits = .some(nil)
                }
            default:
                return .failure(Connection.ExtensionNegotiationError("unknown parameter \(parameter.name)"))
            }
        }
        return .success(params)
    }

    /// RFC 7692 §7.1.2: "1*DIGIT" with a value from 8 to 15, no leading zero.
    private static func windowBits(_ value: String?) -> Int? {
        guard let value, (1...2).contains(value.utf8.count), value.utf8.first != UInt8(ascii: "0"),
              value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let bits = Int(value), (8...15).contains(bits) else { return nil }
        return bits
    }

    /// (Server) The response to this offer and what it commits us to.
    func serverResponse(policy: PerMessageDeflate.ServerPolicy) -> (Connection.ExtensionHeader, DeflateTransform.Agreement) {
        var response: [Connection.ExtensionHeader.Parameter] = []
        // RFC 7692 §7.1.1.1: a server that accepts server_no_context_takeover must echo it; it may also
        // add it on its own.
        let serverReset = serverNoContextTakeover || policy.noContextTakeover
        if serverReset { response.append(.init(name: "server_no_context_takeover")) }
        // Echo the client's promise; never impose it unasked (some clients break on that).
        if clientNoContextTakeover { response.append(.init(name: "client_no_context_takeover")) }
        let ownLimit = min(max(policy.maxWindowBits, 8), 15)
        var serverBits = 15
        if let requested = serverMaxWindowBits {
            // RFC 7692 §7.1.2.1: answer with the same or a smaller value.
            serverBits = min(requested, ownLimit)
            response.append(.init(name: "server_max_window_bits", value: String(serverBits)))
        } else if ownLimit < 15 {
            serverBits = ownLimit
            response.append(.init(name: "server_max_window_bits", value: String(serverBits)))
        }
        var clientBits = 15
        if let offered = clientMaxWindowBits {
            // RFC 7692 §7.1.2.2: only when the client listed the parameter.
            if let wanted = policy.clientMaxWindowBits {
                clientBits = min(max(wanted, 8), offered ?? 15)
                response.append(.init(name: "client_max_window_bits", value: String(clientBits)))
            } else if let offered {
                clientBits = offered
            }
        }
        let agreement = DeflateTransform.Agreement(sendWindowBits: serverBits, sendNoContextTakeover: serverReset,
                                                   receiveWindowBits: clientBits,
                                                   receiveNoContextTakeover: clientNoContextTakeover)
        return (Connection.ExtensionHeader(name: "permessage-deflate", parameters: response), agreement)
    }

    /// (Client) What a valid response commits us to, if it fits `offer`.
    func clientAgreement(for offer: PerMessageDeflate.Offer) -> DeflateTransform.Agreement? {
        // RFC 7692 §7.1.1.1: a server that accepts server_no_context_takeover must include it.
        if offer.serverNoContextTakeover && !serverNoContextTakeover { return nil }
        // RFC 7692 §7.1.2.1: the server must answer server_max_window_bits=N with N or less.
        if let asked = offer.serverMaxWindowBits {
            guard let granted = serverMaxWindowBits, granted <= asked else { return nil }
        }
        var ourBits = 15
        if case .some(let granted?) = clientMaxWindowBits {
            // RFC 7692 §7.1.2.2: only if we offered the parameter, and within our own limit.
            switch offer.clientMaxWindowBits {
            case .unspecified: return nil
            case .acceptsAny: ourBits = granted
            case .bits(let limit):
                guard granted <= limit else { return nil }
                ourBits = granted
            }
        } else if case .bits(let limit) = offer.clientMaxWindowBits {
            ourBits = limit
        }
        return DeflateTransform.Agreement(sendWindowBits: ourBits,
                                          sendNoContextTakeover: clientNoContextTakeover || offer.clientNoContextTakeover,
                                          receiveWindowBits: serverMaxWindowBits ?? 15,
                                          receiveNoContextTakeover: serverNoContextTakeover)
    }
}
