import Readings
import Testing
import Wire
@testable import Transmitters

@Suite struct MiaoMiaoPacketTests {
    @Test func everyFieldWithoutPatchInfo() throws {
        let packet = try MiaoMiaoPacket(decoding: MiaoMiaoFixtures.packet())
        #expect(packet.declaredLength == 363)
        #expect(packet.minuteCounter == 0x1381)
        #expect(packet.sensorUID == MiaoMiaoFixtures.uid)
        #expect(packet.sensorUIDHex == "2C5E8B0000A407E0")
        #expect(packet.battery == Percent(87))
        #expect(packet.firmware == [0x00, 0x39])
        #expect(packet.firmwareVersion == "0039")
        #expect(packet.hardwareVersion == "0001")
        #expect(packet.fram == LibreFixtures.xDripLibre1)
        #expect(packet.patchInfo == nil)
    }

    @Test(arguments: [363, 369])
    func withPatchInfo(declared: Int) throws {
        let packet = try MiaoMiaoPacket(decoding: MiaoMiaoFixtures.packet(declaredLength: declared, patchInfo: [UInt8](hex: "df 00 00 08 1a 24")))
        #expect(packet.patchInfo?.family == .libre1)
        #expect(packet.patchInfo?.bytes == [0xDF, 0x00, 0x00, 0x08, 0x1A, 0x24])
        #expect(packet.fram == LibreFixtures.xDripLibre1)
    }

    static let rejections: [(String, [UInt8], MiaoMiaoPacketError)] = [
        ("empty", [], .notADataPacket(nil)),
        ("not 0x28", [0x32] + MiaoMiaoFixtures.packet().dropFirst(), .notADataPacket(0x32)),
        ("truncated", Array(MiaoMiaoFixtures.packet().dropLast()), .wrongLength(362)),
        ("oversized", MiaoMiaoFixtures.packet() + [0], .wrongLength(364)),
        ("declares 369, carries 363", MiaoMiaoFixtures.packet(declaredLength: 369), .declaredLengthMismatch(declared: 369, received: 363)),
        ("declares 400", MiaoMiaoFixtures.packet(declaredLength: 400), .declaredLengthMismatch(declared: 400, received: 363)),
        ("no end marker", MiaoMiaoFixtures.packet(endMarker: 0x00), .missingEndMarker(0x00)),
        ("battery 101", MiaoMiaoFixtures.packet(battery: 101), .batteryOutOfRange(101)),
    ]

    @Test(arguments: rejections)
    func rejected(name: String, bytes: [UInt8], error: MiaoMiaoPacketError) {
        #expect(throws: error, "\(name)") { try MiaoMiaoPacket(decoding: bytes) }
    }

    @Test func commands() {
        #expect(MiaoMiao.Command.startReading.bytes == [0xF0])
        #expect(MiaoMiao.Command.setInterval(minutes: 5).bytes == [0xD1, 0x05])
        #expect(MiaoMiao.Command.confirmNewSensor(true).bytes == [0xD3, 0x01])
        #expect(MiaoMiao.Command.confirmNewSensor(false).bytes == [0xD3, 0x00])
    }
}
