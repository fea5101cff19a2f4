import CZlibReference

/// The harness's own RFC 7692 decoder, the oracle of the `deflate` target: plain zlib calls over a
/// whole message's payload at once, written apart from the library's chunked, limit-checked decoder
/// (WebSocketDeflate's `DeflateTransform` and `InflateBox`).
///
/// RFC 7692 §7.2.2: the payload plus the 4-byte tail `00 00 FF FF` is raw DEFLATE data in the window
/// the sender agreed to (8 is read as 9, as zlib needs); with context takeover the window carries
/// over to the next message. A block with BFINAL set ends the stream: what follows in the same message
/// starts a new one (§7.2.3.4), and no tail is appended to a message that ended its stream.
public final class ReferenceInflater {
    public enum Outcome: Equatable {
        case message([UInt8])
        /// The decoded size went over the limit.
        case tooLarge
        /// zlib refused the data.
        case invalid
    }

    private let stream: UnsafeMutablePointer<z_stream>
    private let noContextTakeover: Bool

    public init(windowBits: Int, noContextTakeover: Bool) {
        self.noContextTakeover = noContextTakeover
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = inflateInit2_(stream, -Int32(max(9, windowBits)), ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "inflateInit2 failed: \(status)")
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Decodes one compressed message's payload, or the start of one (`isComplete` false: no tail, and
    /// the state is left mid-message). After `.tooLarge` or `.invalid` the state is spent (the library
    /// fails the connection there).
    public func decode(_ payload: [UInt8], limit: Int, isComplete: Bool = true) -> Outcome {
        var output: [UInt8] = []
        var rest = payload[...]
        var ended = false
        func run(_ input: ArraySlice<UInt8>) -> (ok: Bool, leftover: Int?) {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            return input.withUnsafeBytes { raw in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: raw.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.pointee.avail_in = uInt(raw.count)
                defer { stream.pointee.next_in = nil }
                while true {
                    let (status, produced) = chunk.withUnsafeMutableBytes { out -> (Int32, Int) in
                        stream.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                        stream.pointee.avail_out = uInt(out.count)
                        let status = inflate(stream, Z_SYNC_FLUSH)
                        stream.pointee.next_out = nil
                        return (status, out.count - Int(stream.pointee.avail_out))
                    }
                    output += chunk[..<produced]
                    switch status {
                    case Z_STREAM_END: return (true, Int(stream.pointee.avail_in))
                    case Z_OK: if stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0 { return (true, nil) }
                    case Z_BUF_ERROR: if stream.pointee.avail_in == 0 { return (true, nil) } else { return (false, nil) }
                    default: return (false, nil)
                    }
                    if output.count > limit { return (true, nil) }
                }
            }
        }
        while !rest.isEmpty {
            if ended {
                inflateReset(stream)
                ended = false
            }
            let (ok, leftover) = run(rest)
            guard ok else { return output.count > limit ? .tooLarge : .invalid }
            if output.count > limit { return .tooLarge }
            if let leftover {
                ended = true
                rest = rest.suffix(leftover)
            } else {
                rest = []
            }
        }
        guard isComplete else { return .message(output) }
        if !ended {
            let (ok, leftover) = run([0x00, 0x00, 0xFF, 0xFF])
            guard ok else { return output.count > limit ? .tooLarge : .invalid }
            if leftover != nil { ended = true }
        }
        if output.count > limit { return .tooLarge }
        if ended || noContextTakeover { inflateReset(stream) }
        return .message(output)
    }
}
