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
    // Bytes still expected in the current sequence, and the allowed range of the next byte.
    var needed = 0
    var lower: UInt8 = 0x80
    var upper: UInt8 = 0xBF
    init() {}
    mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for b in bytes {
            if needed == 0 {
                switch b {
                case 0x00...0x7F: continue
                case 0xC2...0xDF: needed = 1
                case 0xE0: needed = 2; lower = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: needed = 2
                case 0xED: needed = 2; upper = 0x9F
                case 0xF0: needed = 3; lower = 0x90
                case 0xF1...0xF3: needed = 3
                case 0xF4: needed = 3; upper = 0x8F
                default: return false
                }
            } else {
                guard b >= lower && b <= upper else { return false }
                lower = 0x80; upper = 0xBF
                needed -= 1
            }
        }
        return true
    }
    mutating func validate(_ bytes: ArraySlice<UInt8>) -> Bool { bytes.withUnsafeBytes { validate($0) } }
    var isAtCharacterBoundary: Bool { needed == 0 }
    mutating func reset() { self = UTF8Validator() }
}
