import Testing
import Wire
@testable import Transmitters

@Suite struct LibreFRAMTests {
    /// The real xDrip dump (LibreFixtures.xDripLibre1), with the values
    /// docs/protocols/libre-fram.md lists.
    @Test func realDump() throws {
        let fram = try LibreFRAM(decoding: LibreFixtures.xDripLibre1)
        #expect(fram.sensorState == .ready)
        #expect(fram.trendIndex == 0)
        #expect(fram.historyIndex == 12)
        #expect(fram.sensorAgeMinutes == 4993)
        #expect(fram.maximumWearMinutes == 20824)
        #expect(fram.trend.map(\.rawGlucose) == LibreFixtures.trendRaw)
        #expect(fram.history.map(\.rawGlucose) == LibreFixtures.historyRaw)
        // Newest trend record = slot (0 − 1) mod 16 = 15; newest history = slot 11.
        #expect(fram.trend[0] == fram.trendSlot(15))
        #expect(fram.trend[15] == fram.trendSlot(0))
        #expect(fram.history[0] == fram.historySlot(11))
        #expect(fram.history[12] == fram.historySlot(31))
        #expect(fram.trend.allSatisfy { $0.problem == nil })
        #expect(fram.history.allSatisfy { $0.problem == nil })
        // 13-bit and 14-bit readings agree on every record of this sensor.
        #expect((fram.trend + fram.history).allSatisfy { $0.rawGlucose13 == $0.rawGlucose14 })
    }

    /// The dump's history dated by `LibreHistoryTiming` (its vectors are in
    /// LibreHistoryTimingTests): in step, the newest record 13 minutes old at sensor minute 4980.
    @Test func realDumpHistoryAndTrendAges() throws {
        let fram = try LibreFRAM(decoding: LibreFixtures.xDripLibre1)
        let timing = try fram.historyTiming()
        #expect(fram.historyAge(0, timing: timing) == .seconds(13 * 60))
        #expect(fram.historyAge(1, timing: timing) == .seconds(28 * 60))
        #expect(fram.historyAge(31, timing: timing) == .seconds((13 + 31 * 15) * 60))
        #expect(fram.trendAge(0) == .zero)
        #expect(fram.trendAge(15) == .seconds(15 * 60))
        #expect(fram.trendSensorMinute(0) == 4993)
        #expect(fram.trendSensorMinute(15) == 4978)
    }

    /// A young sensor: history slots at or before the sensor's start are not dated.
    @Test func historyBeforeTheSensorStartedHasNoAge() throws {
        // Age 100, index 6 (in step): delay = (97 mod 15) + 3 = 10, so the newest record is at
        // minute 90, the sixth (k = 5) at minute 15, and k = 6 would be minute 0.
        let fram = try LibreFRAM(decoding: LibreFixtures.variant([27: 6, 316: 100, 317: 0]))
        let timing = try fram.historyTiming()
        #expect(fram.historyAge(0, timing: timing) == .seconds(10 * 60))
        #expect(fram.historyAge(5, timing: timing) == .seconds(85 * 60))
        #expect(fram.historyAge(6, timing: timing) == nil)
    }

    @Test func zeroMaximumWearUsesTheDefault() throws {
        let fram = try LibreFRAM(decoding: LibreFixtures.variant([326: 0, 327: 0]))
        #expect(fram.maximumWearMinutes == 20880)
    }

    @Test(arguments: [UInt8(0x01), 0x04, 0x05, 0x06])
    func statesThatDoNotConstrainAge(state: UInt8) throws {
        let fram = try LibreFRAM(decoding: LibreFixtures.withAge(0, state: state))
        #expect(fram.sensorState.rawValue == state)
        #expect(!fram.sensorState.givesGlucose)
    }

    // MARK: - Rejection table

    static let rejections: [(String, [UInt8], LibreFRAMError)] = [
        ("empty", [], .wrongLength(0)),
        ("one byte short", Array(LibreFixtures.xDripLibre1.dropLast()), .wrongLength(343)),
        ("one byte long", LibreFixtures.xDripLibre1 + [0], .wrongLength(345)),
        ("header byte flipped", flipped(5), .crcMismatch(.header, stored: 0x9945, computed: LibreBlockCRC.compute(flipped(5)[0..<24]))),
        ("body byte flipped", flipped(100), .crcMismatch(.body, stored: 0x2446, computed: LibreBlockCRC.compute(flipped(100)[24..<320]))),
        ("footer byte flipped", flipped(330), .crcMismatch(.footer, stored: 0x6A4F, computed: LibreBlockCRC.compute(flipped(330)[320..<344]))),
        ("stored CRC wrong", LibreFixtures.xDripLibre1.replacing(at: 24, with: 0x47), .crcMismatch(.body, stored: 0x2447, computed: 0x2446)),
        ("state 0", LibreFixtures.variant([4: 0x00]), .unknownSensorState(0x00)),
        ("state 7", LibreFixtures.variant([4: 0x07]), .unknownSensorState(0x07)),
        ("trend index 16", LibreFixtures.variant([26: 16]), .trendIndexOutOfRange(16)),
        ("history index 32", LibreFixtures.variant([27: 32]), .historyIndexOutOfRange(32)),
        ("age 0 while ready", LibreFixtures.withAge(0), .impossibleSensorAge(minutes: 0, reason: "zero while ready")),
        ("age 0 while warming up", LibreFixtures.withAge(0, state: 0x02), .impossibleSensorAge(minutes: 0, reason: "zero while warming up")),
        ("age beyond max wear", LibreFixtures.withAge(20825),
         .impossibleSensorAge(minutes: 20825, reason: "beyond the maximum wear time of 20824 minutes while ready")),
        ("age 0xFFFF", LibreFixtures.withAge(0xFFFF),
         .impossibleSensorAge(minutes: 65535, reason: "beyond the maximum wear time of 20824 minutes while ready")),
    ]

    static func flipped(_ offset: Int) -> [UInt8] { LibreFixtures.xDripLibre1.replacing(at: offset, with: LibreFixtures.xDripLibre1[offset] ^ 0x01) }

    @Test(arguments: rejections)
    func rejected(name: String, bytes: [UInt8], error: LibreFRAMError) {
        #expect(throws: error, "\(name)") { try LibreFRAM(decoding: bytes) }
    }

    @Test func errorDescriptionsNameTheProblem() {
        #expect(LibreFRAMError.crcMismatch(.body, stored: 0x2447, computed: 0x2446).description
            == "Libre FRAM body CRC mismatch: stored 0x2447, computed 0x2446")
        #expect(LibreFRAMError.wrongLength(12).description == "Libre FRAM of 12 bytes, expected 344")
    }

    @Test func ageAtMaximumWearIsAccepted() throws {
        #expect(try LibreFRAM(decoding: LibreFixtures.withAge(20824)).sensorAgeMinutes == 20824)
    }
}

extension Array where Element == UInt8 {
    func replacing(at offset: Int, with value: UInt8) -> [UInt8] {
        var copy = self
        copy[offset] = value
        return copy
    }
}
