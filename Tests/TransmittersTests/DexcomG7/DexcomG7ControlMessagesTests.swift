import Testing
import Wire
@testable import Transmitters

// Vectors: G7SensorKit's message tests, quoted in docs/protocols/dexcom-g7.md §Control messages.
struct DexcomG7ControlMessagesTests {
    @Test func glucose() throws {
        let bytes = [UInt8](hex: "4e00a89c00008800000104008d0006038a000f")
        let message = try DexcomG7.GlucoseRx(decoding: bytes)
        #expect(message.milligramsPerDeciliter == 141)
        #expect(message.measuredAt == 40_100)
        #expect(message.sequence == 136)
        #expect(message.age == 4)
        #expect(message.predictedMilligramsPerDeciliter == 138)
        #expect(message.rate == 0.3)
        #expect(message.state == .ok)
        #expect(!message.isDisplayOnly)
        #expect(message.bytes == bytes)
    }

    @Test func twoByteAgeAndTheMeasurementTime() throws {
        let message = try DexcomG7.GlucoseRx(decoding: [UInt8](hex: "4e00f9590200030200012a018f000610d9000f"))
        #expect(message.age == 298)
        #expect(message.messageTime == 154_105)
        #expect(message.measuredAt == 153_807)
    }

    @Test func warmUpHasNoGlucoseAndNoTrend() throws {
        let message = try DexcomG7.GlucoseRx(decoding: [UInt8](hex: "4e00cd000000030000010500ffff027fffff01"))
        #expect(message.milligramsPerDeciliter == nil)
        #expect(message.state == .warmup)
        #expect(message.rate == nil)
        #expect(message.measuredAt == 200)
    }

    @Test func expiredSensor() throws {
        let message = try DexcomG7.GlucoseRx(decoding: [UInt8](hex: "4e004d440e00d40b0001d46b650018036a000e"))
        #expect(message.state.description == "expired")
        #expect(message.age == 27_604)
        #expect(message.measuredAt == 907_385)
    }

    @Test func negativeAndMissingRate() throws {
        #expect(try DexcomG7.GlucoseRx(decoding: [UInt8](hex: "4e00c6cc0d00ca0b00010500610006fe5b000f")).rate == -0.2)
        #expect(try DexcomG7.GlucoseRx(decoding: [UInt8](hex: "4e00c6cc0d00ca0b000105006100067f5b000f")).rate == nil)
    }

    @Test func displayOnlyAfterACalibration() throws {
        let message = try DexcomG7.GlucoseRx(decoding: [UInt8](hex: "4e000ec10d00c00b00010000680006fe63001f"))
        #expect(message.milligramsPerDeciliter == 104)
        #expect(message.measuredAt == 901_390)
        #expect(message.isDisplayOnly)
    }

    @Test func malformedGlucoseIsRefused() {
        #expect(throws: WireError.self) { try DexcomG7.GlucoseRx(decoding: [UInt8](hex: "4e00a89c0000880000010400")) }
        #expect(throws: WireError.self) { try DexcomG7.GlucoseRx(decoding: [UInt8](hex: "4f00a89c00008800000104008d0006038a000f")) }
        #expect(throws: WireError.self) { try DexcomG7.GlucoseRx(decoding: [UInt8](hex: "4e00a89c00008800000104008d0006038a000f00")) }
    }

    @Test func backfillRecords() throws {
        let record = try #require(try DexcomG7.BackfillRecord.records(in: [UInt8](hex: "cf5802008f00060f10")).first)
        #expect(record.measuredAt == 153_807)
        #expect(record.milligramsPerDeciliter == 143)
        #expect(record.state == .ok)
        #expect(!record.isDisplayOnly)
        #expect(try DexcomG7.BackfillRecord.records(in: [UInt8](hex: "f20e0d00ba00060ffb")).first?.measuredAt == 855_794)
        #expect(try DexcomG7.BackfillRecord.records(in: [UInt8](hex: "f63d00008500061efe")).first?.isDisplayOnly == true)
        // Two to a notification, as a G7 sends them; the encoding round-trips.
        let two = try DexcomG7.BackfillRecord.records(in: [UInt8](hex: "cf5802008f00060f10 f20e0d00ba00060ffb"))
        #expect(two.map(\.measuredAt) == [153_807, 855_794])
        #expect(two[0].bytes + two[1].bytes == [UInt8](hex: "cf5802008f00060f10 f20e0d00ba00060ffb"))
        #expect(throws: WireError.self) { try DexcomG7.BackfillRecord.records(in: [UInt8](hex: "cf5802008f0006")) }
        #expect(throws: WireError.self) { try DexcomG7.BackfillRecord.records(in: []) }
    }

    @Test func backfillRequest() {
        #expect(DexcomG7.BackfillTx(start: 0x0102_0304, end: 0x0A0B_0C0D).bytes == [UInt8](hex: "59 04030201 0d0c0b0a"))
    }

    @Test func extendedVersion() throws {
        let version = try DexcomG7.ExtendedVersionRx(decoding: [UInt8](hex: "5200c0d70d00540600020404ff0c00"))
        #expect(version.sessionLength == .seconds(907_200))
        #expect(version.warmUp == .seconds(1_620))
        #expect(version.algorithmVersion == 67_371_520)
        #expect(version.hardwareVersion == 255)
        #expect(version.maximumLifetimeDays == 12)
    }

    @Test func transmitterVersion() throws {
        let version = try DexcomG7.TransmitterVersionRx(decoding: [UInt8](hex: "4a002cc069489c37000031474141c03e55bcb300"))
        #expect(version.status == 0)
        #expect(version.firmwareText == "44.192.105.72")
        #expect(version.softwareNumber == 0x379C)
        #expect(version.serialNumber == 0xB3_BC55_3EC0)
        #expect(throws: WireError.self) { try DexcomG7.TransmitterVersionRx(decoding: [UInt8](hex: "4a0025c0695e04030201ddccbbaa0605040302")) }
    }

    @Test func calibration() throws {
        #expect(DexcomG7.CalibrateTx(milligramsPerDeciliter: 120, measuredAt: 0x0001_0203).bytes == [UInt8](hex: "34 7800 03020100"))
        #expect(try DexcomG7.CalibrateRx(decoding: [UInt8](hex: "34000100")).isAccepted)
        let refused = try DexcomG7.CalibrateRx(decoding: [UInt8](hex: "34000500"))
        #expect(!refused.isAccepted)
        #expect(refused.status == 5)
        #expect(throws: WireError.self) { try DexcomG7.CalibrateRx(decoding: [UInt8](hex: "3400")) }
    }
}
