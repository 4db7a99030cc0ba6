import Testing
import Wire
@testable import Transmitters

struct DexcomControlMessagesTests {
    // CGMBLEKit TransmitterTimeRxMessageTests, docs/protocols/dexcom-g5-g6.md §Control messages
    // worked example [verified CRC].
    @Test func transmitterTime() throws {
        let bytes = [UInt8](hex: "25 00 47 02 72 00 7c ff 71 00 01 00 00 00 fa 1d")
        let time = try Dexcom.TransmitterTimeRx(decoding: bytes)
        #expect(time.status.isOK)
        #expect(time.currentTime == 7_471_687)
        #expect(time.sessionStartTime == 7_470_972)
        #expect(time.unknown == 1)
        #expect(time.bytes == bytes)
        // FFFFFFFF = no session.
        let none = Dexcom.TransmitterTimeRx(currentTime: 100, sessionStartTime: nil)
        #expect(none.bytes[6..<10] == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try Dexcom.TransmitterTimeRx(decoding: none.bytes).sessionStartTime == nil)
    }

    // CGMBLEKit GlucoseRxMessageTests (docs/protocols/dexcom-g5-g6.md §Control messages worked
    // examples) [verified CRCs].
    @Test func glucoseG5() throws {
        let bytes = [UInt8](hex: "31 00 68 0a 00 00 8a 71 57 00 cc 00 06 ff c4 2a")
        let g = try Dexcom.GlucoseRx(decoding: bytes)
        #expect(g.opcode == 0x31)
        #expect(g.status.isOK)
        #expect(g.sequence == 2664)
        #expect(g.timestamp == 5_730_698)
        #expect(g.glucoseMilligramsPerDeciliter == 204)
        #expect(!g.isDisplayOnly)
        #expect(g.calibrationState == .ok)
        #expect(g.trend == -1)
        #expect(g.predictedGlucose == nil)
        #expect(g.bytes == bytes)

        let displayOnly = try Dexcom.GlucoseRx(decoding: [UInt8](hex: "31 00 70 0a 00 00 f1 7a 57 00 58 40 06 e3 ce e9"))
        #expect(displayOnly.sequence == 2672)
        #expect(displayOnly.timestamp == 5_733_105)
        #expect(displayOnly.glucoseField == 0x4058)
        #expect(displayOnly.glucoseMilligramsPerDeciliter == 88)
        #expect(displayOnly.isDisplayOnly)
        #expect(displayOnly.calibrationState == .ok)
        #expect(displayOnly.trend == -29)
    }

    /// G6 0x4F in both readings of docs/protocols/dexcom-g5-g6.md §Control messages: 16 bytes
    /// (CGMBLEKit) and 18 bytes with a predicted value (xDrip EGlucoseRxMessage). Built from the G5
    /// vector's fields.
    @Test func glucoseG6BothLengths() throws {
        let short = Dexcom.GlucoseRx(opcode: 0x4F, sequence: 2664, timestamp: 5_730_698, glucoseField: 204, calibrationState: .ok, trend: -1)
        #expect(short.bytes.count == 16)
        #expect(try Dexcom.GlucoseRx(decoding: short.bytes) == short)
        var long = short
        long.predictedGlucose = 210
        #expect(long.bytes.count == 18)
        let decoded = try Dexcom.GlucoseRx(decoding: long.bytes)
        #expect(decoded.predictedGlucose == 210)
        #expect(decoded.glucoseMilligramsPerDeciliter == 204)
        // The predicted field keeps its low 10 bits only.
        var masked = long.bytes.prefix(14) + [0xFF, 0xFF]
        masked = ArraySlice(Dexcom.withCRC(Array(masked)))
        #expect(try Dexcom.GlucoseRx(decoding: Array(masked)).predictedGlucose == 0x3FF)
    }

    @Test(arguments: [
        ("31 00 68 0a 00 00 8a 71 57 00 cc 00 06 ff c4 2b", "bad CRC"),
        ("31 00 68 0a 00 00 8a 71 57 00 cc 00 06 ff c4", "truncated"),
        ("31 00 68 0a 00 00 8a 71 57 00 cc 00 06 ff 00 00 c4 2a", "oversized G5"),
        ("25 00 47 02 72 00 7c ff 71 00 01 00 00 00 fa 1d", "wrong opcode"),
        ("", "empty"),
    ])
    func glucoseRejects(_ hex: String, _ what: String) {
        #expect(throws: WireError.self, "\(what)") { try Dexcom.GlucoseRx(decoding: [UInt8](hex: hex)) }
    }

    @Test func badCRCNamesBothValues() {
        #expect(throws: WireError.malformed("GlucoseRx CRC mismatch: stored 0x2BC4, computed 0x2AC4")) {
            try Dexcom.GlucoseRx(decoding: [UInt8](hex: "31 00 68 0a 00 00 8a 71 57 00 cc 00 06 ff c4 2b"))
        }
    }

    /// SensorRx in its three lengths (docs/protocols/dexcom-g5-g6.md §Control messages); values
    /// built here.
    @Test func sensorVariants() throws {
        let counts = Dexcom.SensorRx(timestamp: 5_730_698, raw: .counts(unfiltered: 180_000, filtered: 176_000))
        #expect(counts.bytes.count == 16)
        #expect(Array(counts.bytes[6..<10]) == [0x20, 0xBF, 0x02, 0x00])  // unfiltered at 6–9 (xDrip, xdrip-js)
        #expect(try Dexcom.SensorRx(decoding: counts.bytes) == counts)
        let floats = Dexcom.SensorRx(timestamp: 7, raw: .floats(unfiltered: 1.5, filtered: 2.25, unknown: 9))
        #expect(floats.bytes.count == 18)
        #expect(Array(floats.bytes[6..<10]) == [0x00, 0x00, 0xC0, 0x3F])  // 1.5 as float32le
        #expect(try Dexcom.SensorRx(decoding: floats.bytes) == floats)
        let none = Dexcom.SensorRx(timestamp: 7, raw: .none)
        #expect(none.bytes.count == 8)
        #expect(try Dexcom.SensorRx(decoding: none.bytes) == none)
        #expect(throws: WireError.self) { try Dexcom.SensorRx(decoding: Array(counts.bytes.prefix(12))) }
    }

    // CGMBLEKit BatteryStatusTxMessage.swift comment sample (docs/protocols/dexcom-g5-g6.md
    // §Control messages) [CRC checked here].
    @Test func batteryLongForm() throws {
        let bytes = [UInt8](hex: "23 00 3c 01 2f 01 cd 02 1f 24 7b ae")
        let b = try Dexcom.BatteryStatusRx(decoding: bytes)
        #expect(b.status.isOK)
        #expect(b.voltageA == 316)
        #expect(b.voltageB == 303)
        #expect(b.resistance == 717)
        #expect(b.runtimeDays == 31)
        #expect(b.temperatureCelsius == 36)
        #expect(b.shortFormByte6 == nil)
        #expect(b.bytes == bytes)
        #expect(b.summary == "A 3.16 V, B 3.03 V, 717 Ω, 31 days, 36 °C")
    }

    /// The 10-byte G6 rev2 form: byte 6 kept, not called runtime (sources disagree), byte 7 temperature.
    @Test func batteryShortForm() throws {
        let short = Dexcom.BatteryStatusRx(status: .init(rawValue: 0x81), voltageA: 305, voltageB: 290, resistance: nil,
                                           runtimeDays: nil, temperatureCelsius: 30, shortFormByte6: 12)
        #expect(short.bytes.count == 10)
        #expect(short.bytes[6] == 12)
        #expect(short.bytes[7] == 30)
        let decoded = try Dexcom.BatteryStatusRx(decoding: short.bytes)
        #expect(decoded == short)
        #expect(decoded.runtimeDays == nil)
        #expect(decoded.summary == "A 3.05 V, B 2.90 V, 30 °C, transmitter low battery")
        #expect(throws: WireError.self) { try Dexcom.BatteryStatusRx(decoding: Array(short.bytes.prefix(9)) + [0]) }
    }

    // CGMBLEKit TransmitterVersionRxMessageTests (firmware [1,0,0,17]); the tail per xDrip.
    @Test func transmitterVersion() throws {
        let v = try Dexcom.TransmitterVersionRx(decoding: [UInt8](hex: "4b0001000011df2900005100037000f00009b6"))
        #expect(v.status.isOK)
        #expect(v.firmware == [1, 0, 0, 17])
        #expect(v.firmwareText == "1.0.0.17")
        #expect(v.build == 10719)
        #expect(v.inactiveDays == 81)
        #expect(v.versionCode == 3)
        #expect(v.maxRuntimeDays == 112)
        #expect(v.maxInactiveDays == 240)
    }

    /// Version 0 per xDrip's self-consistent layout (ASIC at 14–15, CRC at 16–17).
    @Test func versionZero() throws {
        let v = Dexcom.VersionRx(firmware: [1, 6, 5, 25], bluetoothFirmware: [4, 0, 0, 1], hardwareRevision: 255,
                                 otherFirmware: [1, 2, 3], asic: 0x1234)
        #expect(v.bytes.count == 18)
        #expect(Array(v.bytes[14..<16]) == [0x34, 0x12])
        let decoded = try Dexcom.VersionRx(decoding: v.bytes)
        #expect(decoded == v)
        #expect(decoded.firmwareText == "1.6.5.25")
    }

    // CGMBLEKit CalibrationDataRxMessageTests (19-byte G5 form).
    @Test func calibrationData() throws {
        let c = try Dexcom.CalibrationDataRx(decoding: [UInt8](hex: "33002b290090012900ae00800050e929001225"))
        #expect(c.status.isOK)
        #expect(c.glucoseMilligramsPerDeciliter == 128)
        #expect(c.timestamp == 2_746_704)
        #expect(c.undecoded == [UInt8](hex: "2b290090012900ae00"))
        #expect(c.g6Tail == nil)
        let g6 = Dexcom.withCRC([UInt8](hex: "33002b290090012900ae00800050e9290007"))
        #expect(try Dexcom.CalibrationDataRx(decoding: g6).g6Tail == 7)
        #expect(throws: WireError.self) { try Dexcom.CalibrationDataRx(decoding: [UInt8](hex: "33002b290090012900ae00800050e929001226")) }
    }
}
