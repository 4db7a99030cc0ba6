import Wire
@testable import Transmitters

/// MiaoMiao packets around the real Libre 1 FRAM. The 18-byte header and the patchInfo are
/// synthetic (no real MiaoMiao capture was available): laid out per
/// docs/protocols/miaomiao-bubble.md §MiaoMiao, with a made-up sensor UID, 87 % battery, firmware
/// 00 39 and hardware 00 01.
enum MiaoMiaoFixtures {
    static let uid = [UInt8](hex: "2c 5e 8b 00 00 a4 07 e0")

    static func packet(fram: [UInt8] = LibreFixtures.xDripLibre1, declaredLength: Int = 363, battery: UInt8 = 87,
                       patchInfo: [UInt8]? = nil, endMarker: UInt8 = 0x29, uid: [UInt8] = uid) -> [UInt8] {
        var bytes: [UInt8] = [0x28, UInt8(declaredLength >> 8), UInt8(declaredLength & 0xFF), 0x13, 0x81]
        bytes += uid
        bytes += [battery, 0x00, 0x39, 0x00, 0x01]
        bytes += fram
        bytes.append(endMarker)
        if let patchInfo { bytes += patchInfo }
        return bytes
    }

    /// `bytes` in notifications of `size` bytes (20: the payload of a default ATT_MTU of 23).
    static func chunks(_ bytes: [UInt8], size: Int = 20) -> [[UInt8]] {
        stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0 ..< min($0 + size, bytes.count)]) }
    }
}
