// TEMPORARY stand-ins until the real files land.
struct MaskingKey: Sendable, Hashable {
    var b0, b1, b2, b3: UInt8
    init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) { self.b0 = b0; self.b1 = b1; self.b2 = b2; self.b3 = b3 }
    init(random: UInt64) { self.init(UInt8(truncatingIfNeeded: random), UInt8(truncatingIfNeeded: random >> 8), UInt8(truncatingIfNeeded: random >> 16), UInt8(truncatingIfNeeded: random >> 24)) }
    var bytes: [UInt8] { [b0, b1, b2, b3] }
    func apply(to buffer: UnsafeMutableRawBufferPointer, offset: Int) -> Int {
        let k = bytes
        for i in 0..<buffer.count { buffer[i] ^= k[(offset + i) & 3] }
        return (offset + buffer.count) & 3
    }
    func apply(to array: inout [UInt8], range: Range<Int>, offset: Int) -> Int {
        array.withUnsafeMutableBytes { apply(to: UnsafeMutableRawBufferPointer(rebasing: $0[range]), offset: offset) }
    }
}
struct UTF8Validator: Sendable, Hashable {
    var pending: [UInt8] = []
    init() {}
    mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for b in bytes {
            pending.append(b)
            if String(validating: pending, as: UTF8.self) != nil { pending = []; continue }
            if pending.count >= 4 { return false }
        }
        return true
    }
    mutating func validate(_ bytes: ArraySlice<UInt8>) -> Bool { bytes.withUnsafeBytes { validate($0) } }
    var isAtCharacterBoundary: Bool { pending.isEmpty }
    mutating func reset() { pending = [] }
}
