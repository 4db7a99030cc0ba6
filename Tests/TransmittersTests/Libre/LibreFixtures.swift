import Simulator
import Wire
@testable import Transmitters

/// Real and derived Libre 1 data for the Libre, MiaoMiao and Bubble tests.
enum LibreFixtures {
    /// A real Libre 1 FRAM: `data_libre1` in xDrip app/src/test/java/com/eveningoutpost/dexdrip/
    /// NFCReaderXTest.java (NightscoutFoundation/xDrip, read at commit 741f8b05f696).
    /// docs/protocols/libre-fram.md §Block CRC and §Fields list its CRCs (header 0x9945, body
    /// 0x2446, footer 0x6A4F), state 3, trend index 0, history index 12, age 4993 min and maximum
    /// wear 20824 min, all recomputed independently. The bytes live once, with the simulated
    /// MiaoMiao that serves them.
    static let xDripLibre1 = SimulatedMiaoMiao.xDripLibre1FRAM

    /// Newest-first 13-bit raw values of the dump's trend ring (slots 15, 14, …, 0), read off
    /// the bytes by hand/Python: slot 15 is `2b 05 00 e0 5b 80` → 0x052B = 1323.
    static let trendRaw = [1323, 1330, 1352, 1340, 1320, 1258, 1231, 1227, 1224, 1219, 1225, 1234, 1230, 1217, 1208, 1235]
    /// Newest-first raw values of the history ring (slots 11, 10, …, 0, 31, …, 12).
    static let historyRaw = [1222, 1138, 1144, 1272, 1226, 1059, 928, 834, 768, 765, 842, 1128,
                             1160, 1300, 1445, 1373, 1198, 995, 895, 859, 859, 962, 1048, 1163,
                             1249, 1244, 1188, 1207, 1075, 1073, 1112, 1158]

    /// `fram` with its three block CRCs recomputed, for building variants of the real dump.
    static func resealed(_ fram: [UInt8]) -> [UInt8] {
        var bytes = fram
        for region in LibreFRAM.Region.allCases {
            let crc = LibreBlockCRC.compute(bytes[region.range])
            bytes[region.range.lowerBound] = UInt8(crc & 0xFF)
            bytes[region.range.lowerBound + 1] = UInt8(crc >> 8)
        }
        return bytes
    }

    /// The dump with some bytes changed and the CRCs made valid again.
    static func variant(_ changes: [Int: UInt8]) -> [UInt8] {
        var bytes = xDripLibre1
        for (offset, value) in changes { bytes[offset] = value }
        return resealed(bytes)
    }

    /// The dump with sensor age `minutes` (bytes 316–317).
    static func withAge(_ minutes: Int, state: UInt8 = 0x03) -> [UInt8] {
        variant([4: state, 316: UInt8(minutes & 0xFF), 317: UInt8(minutes >> 8)])
    }
}
