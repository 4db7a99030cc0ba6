import Testing
import Wire
@testable import Transmitters

struct DexcomControlRequestTests {
    // docs/protocols/dexcom-g5-g6.md §Framing and CRC [verified]; 4E 0A A9 also in xDrip libkeks
    // Config.java.
    @Test(arguments: [
        (Dexcom.ControlRequest.transmitterTime, "24 E6 64", UInt8(0x25)),
        (.glucoseG5, "30 53 36", 0x31),
        (.glucoseG6, "4E 0A A9", 0x4F),
        (.sensor, "2E AC C5", 0x2F),
        (.battery, "22 20 04", 0x23),
        (.calibrationData, "32 11 16", 0x33),
        (.firmwareVersion, "20 62 24", 0x21),
        (.transmitterVersion, "4A 8E E9", 0x4B),
        (.reset, "42 86 68", 0x43),
    ])
    func bytes(_ request: Dexcom.ControlRequest, _ hex: String, _ reply: UInt8) {
        #expect(request.bytes == [UInt8](hex: hex))
        #expect(request.replyOpcode == reply)
    }

    // CGMBLEKit GlucoseRxMessageTests: CRC 0x2AC4 stored as c4 2a (docs/protocols/dexcom-g5-g6.md
    // §Framing and CRC) [verified].
    @Test func crcAppendedLowByteFirst() {
        let body = [UInt8](hex: "31 00 68 0a 00 00 8a 71 57 00 cc 00 06 ff")
        #expect(CRC16.xmodem(body) == 0x2AC4)
        #expect(Dexcom.withCRC(body).suffix(2) == [0xC4, 0x2A])
    }
}
