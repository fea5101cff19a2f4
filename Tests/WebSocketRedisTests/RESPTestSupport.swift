// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) @testable import WebSocketRedis

/// Helpers of the RESP tests.
enum R {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// What a decoder gives for `input` fed in `pieces`: the values, and the error or whether a value
    /// was left partial.
    struct Fed: Equatable {
        var encodedValues: [[UInt8]] = []
        var error: RESPError?
        var partial = false
    }

    static func decodeAll(_ input: [UInt8], limits: RESPDecoder.Limits = .init()) throws(RESPError) -> [RESPValue] {
        var decoder = RESPDecoder(limits: limits)
        decoder.feed(input)
        var values: [RESPValue] = []
        while let value = try decoder.next() { values.append(value) }
        return values
    }

    static func decodeOne(_ text: String) throws(RESPError) -> RESPValue? {
        let values = try decodeAll(bytes(text))
        return values.count == 1 ? values[0] : nil
    }

    static func error(_ input: [UInt8], limits: RESPDecoder.Limits = .init()) -> RESPError? {
        do throws(RESPError) {
            _ = try decodeAll(input, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    static func encode(_ value: RESPValue) -> [UInt8] {
        var output: [UInt8] = []
        RESPEncoder.append(value, to: &output)
        return output
    }

    /// Feeds `input` in pieces of the given sizes (the rest at the end), pulling after every piece, and
    /// checks after each pull that the decoder holds no more than it may.
    static func feed(_ input: [UInt8], pieces: [Int], limits: RESPDecoder.Limits = .init()) -> Fed {
        var decoder = RESPDecoder(limits: limits)
        var fed = Fed()
        var offset = 0
        var sizes = pieces[...]
        while offset < input.count || sizes.isEmpty == false {
            let size = min(sizes.popFirst() ?? (input.count - offset), input.count - offset)
            decoder.feed(input[offset..<(offset + size)])
            offset += size
            do throws(RESPError) {
                while let value = try decoder.next() { fed.encodedValues.append(encode(value)) }
            } catch {
                fed.error = error
                return fed
            }
            if sizes.isEmpty && offset >= input.count { break }
        }
        fed.partial = decoder.hasPartialValue
        return fed
    }
}
