/// Reads a fuzz input as a little script: bytes that choose what happens and bytes that are
/// the data. Never traps: past the end every read returns zero or empty, so libFuzzer's
/// truncations are ordinary inputs.
struct FuzzInput {
    let bytes: [UInt8]
    private(set) var index = 0

    init(_ buffer: UnsafeRawBufferPointer) { bytes = Array(buffer) }
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index >= bytes.count }
    var remainingCount: Int { max(0, bytes.count - index) }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func uint16() -> UInt16 { UInt16(byte()) | UInt16(byte()) << 8 }

    /// Up to `count` bytes (fewer at the end).
    mutating func take(_ count: Int) -> [UInt8] {
        let n = min(max(0, count), remainingCount)
        defer { index += n }
        return Array(bytes[index..<(index + n)])
    }

    /// A length octet, then that many bytes (fewer at the end): one PDU, one notification.
    mutating func chunk() -> [UInt8] { take(Int(byte())) }

    /// Everything not yet read.
    mutating func rest() -> [UInt8] { take(remainingCount) }
}

/// Whole-input helpers shared by the targets.
extension [UInt8] {
    /// The bytes as text the way the app reads a file or a tty line: invalid UTF-8 repaired.
    var lossyText: String { String(decoding: self, as: UTF8.self) }
}
