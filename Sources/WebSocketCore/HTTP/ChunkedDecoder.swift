// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The chunked transfer coding (RFC 9112 §7.1), decoded a byte at a time across any split:
///
///     chunked-body = *chunk last-chunk trailer-section CRLF
///     chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
///     chunk-size   = 1*HEXDIG
///     last-chunk   = 1*("0") [ chunk-ext ] CRLF
///
/// Extensions and trailer fields are skipped without being stored. A bare LF ends a line as in the
/// head. The chunk size is accumulated with overflow checks: a size that does not fit in 64 bits, or
/// any other syntax error, ends the body (``isDone``) with what was read.
struct ChunkedDecoder: Sendable {
    private enum State: Sendable {
        case sizeStart
        case size
        /// After the size: whitespace and `;` extensions until the end of the line.
        case sizeLineRest
        case sizeLF
        case data
        case dataCR
        case dataLF
        case trailerLineStart
        case trailerLine
        case trailerLF
        case lastLF
        case done
    }

    private var state = State.sizeStart
    private var chunkSize: UInt64 = 0
    private var remaining: UInt64 = 0

    var isDone: Bool {
        if case .done = state { return true }
        return false
    }

    /// Advances over the start of `bytes`: returns how many bytes were consumed, of which the first
    /// `data` are body data (chunk data is handed back in runs; framing bytes one at a time).
    mutating func step(_ bytes: Slice<UnsafeRawBufferPointer>) -> (consumed: Int, data: Int) {
        guard let byte = bytes.first else { return (0, 0) }
        switch state {
        case .done:
            return (0, 0)
        case .data:
            let take = UInt64(bytes.count) < remaining ? bytes.count : Int(remaining)
            remaining -= UInt64(take)
            if remaining == 0 { state = .dataCR }
            return (take, take)
        case .sizeStart, .size:
            if let digit = PercentEncoding.hexValue(byte) {
                // RFC 9112 §7.1: "Recipients MUST anticipate potentially large hexadecimal numerals and
                // prevent parsing errors due to integer conversion overflows or precision loss due to
                // integer representation."
                let (shifted, overflow) = chunkSize.multipliedReportingOverflow(by: 16)
                guard !overflow else { return fail() }
                chunkSize = shifted | UInt64(digit)
                state = .size
            } else if case .size = state,
                      HTTPTokens.isOWS(byte) || byte == UInt8(ascii: ";") || byte == 0x0D || byte == 0x0A {
                state = .sizeLineRest
                return lineRest(byte)
            } else {
                return fail()
            }
        case .sizeLineRest:
            return lineRest(byte)
        case .sizeLF:
            guard byte == 0x0A else { return fail() }
            endSizeLine()
        case .dataCR:
            if byte == 0x0D {
                state = .dataLF
            } else if byte == 0x0A {
                state = .sizeStart
            } else {
                return fail()
            }
        case .dataLF:
            guard byte == 0x0A else { return fail() }
            state = .sizeStart
        case .trailerLineStart:
            // The trailer section ends at an empty line; other lines are trailer fields, skipped.
            switch byte {
            case 0x0D: state = .lastLF
            case 0x0A: state = .done
            default: state = .trailerLine
            }
        case .trailerLine:
            switch byte {
            case 0x0D: state = .trailerLF
            case 0x0A: state = .trailerLineStart
            default: break
            }
        case .trailerLF:
            guard byte == 0x0A else { return fail() }
            state = .trailerLineStart
        case .lastLF:
            guard byte == 0x0A else { return fail() }
            state = .done
        }
        return (1, 0)
    }

    /// Whitespace and chunk extensions after the size (`chunk-ext = *( BWS ";" BWS ext-name [ BWS "="
    /// BWS ext-val ] )`), skipped up to the line's end. Extension syntax is not checked: it is ignored.
    private mutating func lineRest(_ byte: UInt8) -> (consumed: Int, data: Int) {
        switch byte {
        case 0x0D: state = .sizeLF
        case 0x0A: endSizeLine()
        default: break
        }
        return (1, 0)
    }

    private mutating func endSizeLine() {
        if chunkSize == 0 {
            state = .trailerLineStart
        } else {
            remaining = chunkSize
            chunkSize = 0
            state = .data
        }
    }

    private mutating func fail() -> (consumed: Int, data: Int) {
        state = .done
        return (1, 0)
    }
}
