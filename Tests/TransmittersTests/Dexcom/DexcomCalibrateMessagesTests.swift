import Testing
import Wire
@testable import Transmitters

// 0x34/0x35 assembled from the field tables (CGMBLEKit CalibrateGlucoseTxMessage: opcode,
// glucose u16, time u32, CRC; xDrip CalibrateRxMessage: opcode, status, result, CRC). The
// CRC-16/XMODEM bytes were computed with an independent Python implementation, which gives
// CGMBLEKit's own vector (0x2AC4 for `31 00 68 0a 00 00 8a 71 57 00 cc 00 06 ff`).
struct DexcomCalibrateMessagesTests {
    @Test func calibrateGlucoseTx() throws {
        let message = Dexcom.CalibrateGlucoseTx(glucoseMilligramsPerDeciliter: 112, time: 5_730_698)
        #expect(message.bytes == [UInt8](hex: "34 70 00 8a 71 57 00 54 10"))
        #expect(try Dexcom.CalibrateGlucoseTx(decoding: message.bytes) == message)
    }

    @Test(arguments: [
        ("35 00 00 55 2e", UInt8(0x00), true, "accepted"),
        ("35 00 08 5d af", UInt8(0x08), false, "rejected"),
    ])
    func calibrateGlucoseRx(_ hex: String, _ result: UInt8, _ accepted: Bool, _ words: String) throws {
        let reply = try Dexcom.CalibrateGlucoseRx(decoding: [UInt8](hex: hex))
        #expect(reply.status.isOK)
        #expect(reply.result.rawValue == result)
        #expect(reply.result.isAccepted == accepted)
        #expect("\(reply.result)" == words)
        #expect(reply.bytes == [UInt8](hex: hex))
    }

    /// xDrip counts 0x06 (a second calibration is needed) and 0x0D (duplicate) as accepted too.
    @Test func acceptedResults() {
        #expect((0...255).filter { Dexcom.CalibrationResult(rawValue: UInt8($0)).isAccepted } == [0x00, 0x06, 0x0D])
    }

    @Test(arguments: [
        ("35 00 00 55", "truncated"),
        ("35 00 00 55 2f", "CRC mismatch"),
        ("36 00 00 55 2e", "opcode"),
        ("35 00 00 00 55 2e", "trailing"),
    ])
    func rejects(_ hex: String, _ what: String) {
        #expect(throws: WireError.self, "\(what)") { try Dexcom.CalibrateGlucoseRx(decoding: [UInt8](hex: hex)) }
    }
}
