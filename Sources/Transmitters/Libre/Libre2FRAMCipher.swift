/// The cipher a European Libre 2 (and non-Gen2 Libre 2 Plus) applies to its 344-byte FRAM,
/// which bridges such as the Bubble and MiaoMiao 2 forward as read
/// (docs/protocols/libre2-fram.md).
///
/// Each 8-byte block is XORed with a keystream block derived from the sensor UID, the last two
/// patchInfo bytes and the block's number, so decryption and encryption are the same
/// operation; both names exist so callers (and simulated bridges) say which way they mean.
public enum Libre2FRAMCipher {
    static let blockByteCount = 8
    static let blockCount = LibreFRAM.byteCount / blockByteCount

    /// The plain FRAM of the sensor `sensorUID`/`patchInfo`, ready for `LibreFRAM(decoding:)`,
    /// whose block CRCs are what tells a right key from a wrong one.
    public static func decrypt(fram: [UInt8], sensorUID: LibreSensorUID, patchInfo: LibrePatchInfo) throws(Libre2FRAMCipherError) -> [UInt8] {
        try applyKeystream(to: fram, sensorUID: sensorUID, patchInfo: patchInfo)
    }

    /// The FRAM as the sensor stores and a bridge forwards it.
    public static func encrypt(fram: [UInt8], sensorUID: LibreSensorUID, patchInfo: LibrePatchInfo) throws(Libre2FRAMCipherError) -> [UInt8] {
        try applyKeystream(to: fram, sensorUID: sensorUID, patchInfo: patchInfo)
    }

    private static func applyKeystream(to fram: [UInt8], sensorUID: LibreSensorUID, patchInfo: LibrePatchInfo) throws(Libre2FRAMCipherError) -> [UInt8] {
        guard patchInfo.family.usesLibre2FRAMCipher else { throw .notLibre2(patchInfo.family) }
        guard fram.count == LibreFRAM.byteCount else { throw .wrongLength(fram.count) }
        // The patchInfo's last two bytes, little-endian, tweaked by a constant: the per-sensor
        // part of the key beyond the UID.
        let patchWord = (UInt16(patchInfo.bytes[4]) | UInt16(patchInfo.bytes[5]) << 8) ^ Constant.patchTweak
        var out = fram
        for block in 0 ..< blockCount {
            let keystream = keystreamBlock(block: UInt16(block), sensorUID: sensorUID, patchWord: patchWord)
            for (offset, byte) in keystream.enumerated() {
                out[block * blockByteCount + offset] ^= byte
            }
        }
        return out
    }

    /// Eight keystream bytes for `block`: four little-endian words out of `Mixer`.
    static func keystreamBlock(block: UInt16, sensorUID: LibreSensorUID, patchWord: UInt16) -> [UInt8] {
        let words = Mixer.mix(
            first: sensorUID.word(at: 4) &+ block &+ patchWord,
            second: sensorUID.word(at: 2) &+ Constant.uidMiddleOffset,
            third: sensorUID.word(at: 0) &+ block &* 2,
            fourth: Constant.seed ^ Constant.seedTweak
        )
        return words.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
    }

    /// The key constants every source carries (docs/protocols/libre2-fram.md §Constants).
    enum Constant {
        /// Folded in when a step shifts out a set bit 1.
        static let bitOneMask: UInt16 = 0xA0C5
        /// Folded in when a step shifts out a set bit 0.
        static let bitZeroMask: UInt16 = 0x6860
        /// Added to UID bytes 2–3; zero in every source, kept so the formula reads as published.
        static let uidMiddleOffset: UInt16 = 0x0000
        static let seed: UInt16 = 0x241A
        static let seedTweak: UInt16 = 0x14C6
        /// XORed into patchInfo bytes 4–5 for the European Libre 2 family.
        static let patchTweak: UInt16 = 0x0044
    }

    /// The 64-bit mixing function: four 16-bit words through eight steps of a two-bit shift
    /// register with feedback masks.
    enum Mixer {
        /// Shifts `value` right by two, XORing in a mask for each of the two bits shifted out.
        static func step(_ value: UInt16) -> UInt16 {
            var next = value >> 2
            if value & 0b01 != 0 { next ^= Constant.bitZeroMask }
            if value & 0b10 != 0 { next ^= Constant.bitOneMask }
            return next
        }

        /// The four output words in keystream order.
        static func mix(first: UInt16, second: UInt16, third: UInt16, fourth: UInt16) -> [UInt16] {
            // A first pass chains the inputs in reverse through the register, a second pass
            // stirs each result with the one four steps before it.
            let a0 = step(first) ^ fourth
            let a1 = step(a0) ^ third
            let a2 = step(a1) ^ second
            let a3 = step(a2) ^ first
            let b0 = step(a3)
            let b1 = step(b0 ^ a0)
            let b2 = step(b1 ^ a1)
            let b3 = step(b2 ^ a2)
            return [a3 ^ b3, a2 ^ b2, a1 ^ b1, a0 ^ b0]
        }
    }
}

public enum Libre2FRAMCipherError: Error, Hashable, Sendable, CustomStringConvertible {
    case notLibre2(LibrePatchInfo.Family)
    case wrongLength(Int)

    public var description: String {
        switch self {
        case let .notLibre2(family): "sensor is \(family): its FRAM is not in the Libre 2 cipher Vigil decrypts"
        case let .wrongLength(count): "FRAM of \(count) bytes, expected \(LibreFRAM.byteCount)"
        }
    }
}
