import Readings
import Testing
import Wire
@testable import Transmitters

/// Bubble messages per docs/protocols/miaomiao-bubble.md §Bubble. No real Bubble capture was
/// available: these vectors are built from the documented layout, each field chosen distinct so a
/// misplaced read shows.
@Suite struct BubbleMessageTests {
    @Test func info() throws {
        // 80, ?, firmware 2.6, battery 87 %, …, hardware 1.4 (the last two bytes).
        let message = try Bubble.Message(decoding: [UInt8](hex: "80 04 02 06 57 00 00 01 04"))
        #expect(message == .info(firmware: Bubble.Version(major: 2, minor: 6), battery: Percent(87)!, hardware: Bubble.Version(major: 1, minor: 4)))
    }

    @Test func shortInfoHasNoHardware() throws {
        let message = try Bubble.Message(decoding: [UInt8](hex: "80 04 01 20 64"))
        #expect(message == .info(firmware: Bubble.Version(major: 1, minor: 32), battery: .full, hardware: nil))
    }

    @Test func serial() throws {
        #expect(try Bubble.Message(decoding: [UInt8](hex: "c0 08 2c 5e 8b 00 00 a4 07 e0")) == .serial(uid: [UInt8](hex: "2c 5e 8b 00 00 a4 07 e0")))
    }

    @Test func dataPayloadStartsAtByte4() throws {
        #expect(try Bubble.Message(decoding: [UInt8](hex: "82 00 00 00 45 99 08")) == .data(payload: [0x45, 0x99, 0x08]))
    }

    @Test func others() throws {
        #expect(try Bubble.Message(decoding: [0xBF]) == .noSensor)
        #expect(try Bubble.Message(decoding: [0x88, 0x00, 0x00, 0x00, 0x2A]) == .plainData(payload: [0x2A]))
        #expect(throws: BubbleMessageError.truncated(code: 0x88, count: 2, needed: 5)) { try Bubble.Message(decoding: [0x88, 0x00]) }
        #expect(try Bubble.Message(decoding: [0x8C]) == .undescribedData(code: 0x8C))
    }

    /// patchInfo moved from bytes 3–8 to 5–10 in firmware 1.35.
    @Test(arguments: [
        (Bubble.Version(major: 1, minor: 35), "c1 00 00 00 00 df 00 00 08 1a 24"),
        (Bubble.Version(major: 2, minor: 0), "c1 00 00 00 00 df 00 00 08 1a 24"),
        (Bubble.Version(major: 1, minor: 34), "c1 00 00 df 00 00 08 1a 24"),
    ])
    func patchInfoByFirmware(firmware: Bubble.Version, hex: String) throws {
        let bytes = [UInt8](hex: hex)
        #expect(try Bubble.Message(decoding: bytes) == .patchInfo(message: bytes))
        #expect(try Bubble.patchInfo(in: bytes, firmware: firmware).bytes == [UInt8](hex: "df 00 00 08 1a 24"))
    }

    @Test func patchInfoTooShortForNewFirmware() {
        #expect(throws: BubbleMessageError.truncated(code: 0xC1, count: 9, needed: 11)) {
            try Bubble.patchInfo(in: [UInt8](hex: "c1 00 00 df 00 00 08 1a 24"), firmware: nil)
        }
    }

    static let rejections: [(String, [UInt8], BubbleMessageError)] = [
        ("empty", [], .empty),
        ("short info", [0x80, 0x00, 0x01, 0x02], .truncated(code: 0x80, count: 4, needed: 5)),
        ("battery 200", [0x80, 0x00, 0x01, 0x02, 200], .batteryOutOfRange(200)),
        ("short serial", [0xC0, 0x08, 0x01], .truncated(code: 0xC0, count: 3, needed: 10)),
        ("short patchInfo", [0xC1, 0x00], .truncated(code: 0xC1, count: 2, needed: 9)),
        ("data without payload", [0x82, 0x00, 0x00, 0x00], .truncated(code: 0x82, count: 4, needed: 5)),
        ("unknown", [0x42], .unknownCode(0x42)),
    ]

    @Test(arguments: rejections)
    func rejected(name: String, bytes: [UInt8], error: BubbleMessageError) {
        #expect(throws: error, "\(name)") { try Bubble.Message(decoding: bytes) }
    }

    /// The app-id byte: xDrip's 0x01 by default (see `Bubble`); the others are configurable.
    @Test func commands() {
        #expect(Bubble.Command.start(appID: 0x01, intervalMinutes: 5).bytes == [0x00, 0x01, 0x05])
        #expect(Bubble.Command.requestData(appID: 0x01).bytes == [0x02, 0x01, 0x00, 0x00, 0x00, 0x2B])
        #expect(Bubble.Command.start(appID: 0xA0, intervalMinutes: 5).bytes == [0x00, 0xA0, 0x05])  // xdripswift
        #expect(Bubble.Command.requestData(appID: 0x00).bytes == [0x02, 0x00, 0x00, 0x00, 0x00, 0x2B])  // LibreTransmitter
        #expect(BubbleDriver.Configuration().appID == 0x01)
    }
}
