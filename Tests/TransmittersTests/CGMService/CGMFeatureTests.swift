import Clocks
import Testing
import Wire
@testable import Transmitters

/// CGM Feature, Status, Session Start Time, Session Run Time and SOCP (gatt-xml cgm_*.xml;
/// docs/protocols/sig-common.md §Date Time; docs/protocols/sig-cgm.md §CGM Feature). Vectors
/// hand-assembled; E2E-CRCs from a Python CRC-16/MCRF4XX (check value 0x6F91).
@Suite struct CGMFeatureTests {
    @Test func decodesAFeatureWithE2ECRC() throws {
        // calibration, E2E-CRC, trend, quality (bits 0, 12, 15, 16) = 0x019001; ISF (9) at subcutaneous tissue (5).
        let bytes = [UInt8](hex: "01 90 01 59 7f 40")
        let feature = try CGMFeature(decoding: bytes)
        #expect(feature.features == [.calibration, .e2eCRC, .trendInformation, .quality])
        #expect(feature.e2eCRCSupported)
        #expect(feature.sampleType == .interstitialFluid)
        #expect(feature.sampleLocation == 5)
        #expect(feature.encoded == bytes)
    }

    @Test func aFeatureWithoutE2ECRCCarriesFFFF() throws {
        let bytes = [UInt8](hex: "01 00 00 59 ff ff")
        let feature = try CGMFeature(decoding: bytes)
        #expect(feature.features == .calibration)
        #expect(!feature.e2eCRCSupported)
        #expect(feature.encoded == bytes)
    }

    @Test(arguments: [
        [UInt8](hex: "01 90 01 59 7f 41"),     // E2E-CRC announced and wrong
        [UInt8](hex: "01 90 01 59"),           // CRC field missing
        [UInt8](hex: "01 00 00 59 ff ff 00"),  // trailing byte
    ])
    func rejectsFeatures(bytes: [UInt8]) {
        #expect(throws: WireError.self) { try CGMFeature(decoding: bytes) }
    }

    @Test func decodesTheStatusWithAndWithoutCRC() throws {
        // time offset 300 min, status bit 0 (session stopped).
        let plain = try CGMStatus(decoding: [UInt8](hex: "2c 01 01 00 00"), crcRequired: false)
        #expect(plain == CGMStatus(timeOffsetMinutes: 300, status: .sessionStopped))
        let checked = try CGMStatus(decoding: [UInt8](hex: "2c 01 01 00 00 4e 61"), crcRequired: true)
        #expect(checked == plain)
        #expect(throws: WireError.self) { try CGMStatus(decoding: [UInt8](hex: "2c 01 01 00 00"), crcRequired: true) }
        #expect(throws: WireError.self) { try CGMStatus(decoding: [UInt8](hex: "2c 01 01 00 00 4e 62"), crcRequired: false) }
        #expect(throws: WireError.self) { try CGMStatus(decoding: [UInt8](hex: "2c 01 01 00"), crcRequired: false) }
    }

    @Test func statusBitsHaveNames() {
        #expect(CGMStatusBits(rawValue: 0x0C_0001).description == "session stopped, below hypo level, above hyper level")
        #expect(CGMStatusBits(rawValue: 0x0000_40).description == "reserved bit 6")
        #expect(CGMStatusBits(rawValue: 0xFF00_0000) == [])  // only 24 bits exist
    }

    @Test func decodesTheSessionStartTimeAndConvertsItToUTC() throws {
        // 2026-11-22 06:00:00 local, zone +4 × 15 min, DST 4 (+1 h) → 04:00:00 UTC = 1 795 320 000 s.
        let bytes = [UInt8](hex: "ea 07 0b 16 06 00 00 04 04 bf d5")
        let start = try CGMSessionStartTime(decoding: bytes, crcRequired: true)
        #expect(start.localTime == DateTime(year: 2026, month: 11, day: 22, hours: 6, minutes: 0, seconds: 0))
        #expect(start.timeZone == 4)
        #expect(start.dstOffset == 4)
        #expect(start.utc == WallClockTime(secondsSinceEpoch: 1_795_320_000))
        #expect(start.encoded(withCRC: true) == bytes)
        #expect(try CGMSessionStartTime(decoding: Array(bytes.prefix(9)), crcRequired: false) == start)
    }

    @Test func unknownZoneAndDSTCountAsUTC() throws {
        let start = try CGMSessionStartTime(decoding: [UInt8](hex: "ea 07 0b 16 06 00 00 80 ff"), crcRequired: false)
        #expect(start.utc == WallClockTime(secondsSinceEpoch: 1_795_327_200))
        let unset = try CGMSessionStartTime(decoding: [UInt8](hex: "00 00 00 00 00 00 00 00 00"), crcRequired: false)
        #expect(unset.utc == nil)
    }

    @Test(arguments: [
        [UInt8](hex: "ea 07 0b 16 06 00 00 39 00"),   // zone +57 × 15 min
        [UInt8](hex: "ea 07 0b 16 06 00 00 cf 00"),   // zone −49
        [UInt8](hex: "ea 07 0b 16 06 00 00 00 01"),   // DST 1 is not a DST code
        [UInt8](hex: "ea 07 0b 16 18 00 00 00 00"),   // hour 24
        [UInt8](hex: "ea 07 0b 16 06 00 00 00"),      // truncated
    ])
    func rejectsSessionStartTimes(bytes: [UInt8]) {
        #expect(throws: WireError.self) { try CGMSessionStartTime(decoding: bytes, crcRequired: false) }
    }

    @Test func decodesTheRunTime() throws {
        #expect(try CGMSessionRunTime(decoding: [0x50, 0x01], crcRequired: false).hours == 336)
        #expect(try CGMSessionRunTime(decoding: [UInt8](hex: "50 01 c6 32"), crcRequired: true).duration == .seconds(336 * 3600))
        #expect(throws: WireError.self) { try CGMSessionRunTime(decoding: [UInt8](hex: "50 01 c6 33"), crcRequired: true) }
    }

    @Test func encodesSOCPRequestsAndDecodesResponses() throws {
        #expect(CGMSpecificOpsControlPoint.request(.startSession, withCRC: false) == [0x1A])
        #expect(CGMSpecificOpsControlPoint.request(.stopSession, withCRC: false) == [0x1B])
        #expect(CGMSpecificOpsControlPoint.request(.startSession, withCRC: true) == [UInt8](hex: "1a 5c b0"))
        #expect(CGMSpecificOpsControlPoint.request(.stopSession, withCRC: true) == [UInt8](hex: "1b d5 a1"))
        #expect(try CGMSpecificOpsControlPoint.Response(decoding: [UInt8](hex: "1c 1a 01 6d 60"), crcRequired: true)
                == .init(requestOpcode: 26, code: .success))
        #expect(try CGMSpecificOpsControlPoint.Response(decoding: [UInt8](hex: "1c 1b 04"), crcRequired: false)
                == .init(requestOpcode: 27, code: .procedureNotCompleted))
        #expect(CGMSpecificOpsControlPoint.ResponseCode.parameterOutOfRange.description == "parameter out of range")
        #expect(CGMSpecificOpsControlPoint.ResponseCode(rawValue: 9).description == "reserved 9")
        for bad in [[UInt8](hex: "0f 1a 01"), [UInt8](hex: "1c 1a"), [UInt8](hex: "1c 1a 01 6d 61"), [UInt8](hex: "1c 1a 01 00")] {
            #expect(throws: WireError.self) { try CGMSpecificOpsControlPoint.Response(decoding: bad, crcRequired: false) }
        }
        #expect(throws: WireError.self) { try CGMSpecificOpsControlPoint.Response(decoding: [UInt8](hex: "1c 1a 01"), crcRequired: true) }
    }
}
