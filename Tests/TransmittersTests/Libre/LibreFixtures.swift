import Wire
@testable import Transmitters

/// Real and derived Libre 1 data for the Libre, MiaoMiao and Bubble tests.
enum LibreFixtures {
    /// A real Libre 1 FRAM: `data_libre1` in xDrip app/src/test/java/com/eveningoutpost/dexdrip/
    /// NFCReaderXTest.java (NightscoutFoundation/xDrip, read at commit 741f8b05f696). protocols.md
    /// §3 lists its CRCs (header 0x9945, body 0x2446, footer 0x6A4F), state 3, trend index 0,
    /// history index 12, age 4993 min and maximum wear 20824 min, all recomputed independently.
    static let xDripLibre1 = [UInt8](hex: """
        45 99 08 1b 03 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
        46 24 00 0c d3 04 00 00 9d 80 b8 04 00 00 5d 80 c1 04 00 10 9d 80 ce 04
        00 00 9d 80 d2 04 00 e8 9c 80 c9 04 00 dc 5c 80 c3 04 00 c4 9c 80 c8 04
        00 8c 5c 80 cb 04 00 64 5c 80 cf 04 00 40 5c 80 ea 04 00 f8 5b 80 28 05
        00 a8 5b 80 3c 05 00 80 5b 80 48 05 00 9c 5b 80 32 05 00 ec 9b 80 2b 05
        00 e0 5b 80 68 04 00 b0 57 80 4a 03 00 f4 9b 80 fd 02 00 d0 9b 80 00 03
        00 14 5c 80 42 03 00 58 5b 80 a0 03 00 fc 9c 80 23 04 00 78 5d 80 ca 04
        00 94 9d 80 f8 04 00 6c 9d 80 78 04 00 d4 9d 80 72 04 00 5c 5c 80 c6 04
        00 00 9d 80 86 04 00 08 9d 80 58 04 00 e0 9d 80 31 04 00 38 9e 80 33 04
        00 e8 5b 80 b7 04 00 cc 5a 80 a4 04 00 18 5a 80 dc 04 00 fc 5a 80 e1 04
        00 90 5a 80 8b 04 00 d0 59 80 18 04 00 84 59 80 c2 03 00 24 59 80 5b 03
        00 9c 58 80 5b 03 00 70 58 80 7f 03 00 40 58 80 e3 03 00 9c 58 80 ae 04
        00 bc 58 80 5d 05 00 c4 18 80 a5 05 00 20 58 80 14 05 00 bc 17 80 88 04
        00 fc 57 80 81 13 01 00 4f 6a 30 08 4b 0b 58 51 14 03 96 80 5a 00 cd a6
        14 7e 1a 00 00 f3 c8 6b
        """)

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
