import Testing
import Wire
@testable import Transmitters

@Suite struct XBridgePacketTests {
    // Hand-assembled from the xBridge2 `RawRecord` layout (docs/protocols/xbridge.md §Binary
    // packets): raw 123632, filtered×2 247264, G4 battery 214, bridge 87 %, TXID 6ABCD
    // (0x00652D8D), delay 2500 ms, level 1.
    static let longData = [UInt8](hex: "15 00 f0 e2 01 00 e0 c5 03 00 d6 57 8d 2d 65 00 c4 09 00 00 01")
    // The older 17-byte form of the same values, without the delay.
    static let shortData = [UInt8](hex: "11 00 f0 e2 01 00 e0 c5 03 00 d6 57 8d 2d 65 00 01")
    // xBridge2.c `sendBeacon`: length 7 (not the 6 of its header comment), type F1, TXID, level.
    static let beacon = [UInt8](hex: "07 f1 8d 2d 65 00 01")

    @Test func decodesTheLongDataPacket() throws {
        guard case let .data(packet) = try XBridgePacket(decoding: Self.longData) else {
            Issue.record("not a data packet")
            return
        }
        #expect(packet.raw == 123_632)
        #expect(packet.filteredTimesTwo == 247_264)
        #expect(packet.transmitterBattery == 214)
        #expect(packet.bridgeBattery == 87)
        #expect(packet.transmitterID == 0x0065_2D8D)
        #expect(packet.delay == .milliseconds(2500))
        #expect(packet.protocolLevel == 1)
        #expect(packet.encoded == Self.longData)
    }

    @Test func decodesTheShortDataPacket() throws {
        guard case let .data(packet) = try XBridgePacket(decoding: Self.shortData) else {
            Issue.record("not a data packet")
            return
        }
        #expect(packet.raw == 123_632)
        #expect(packet.filteredTimesTwo == 247_264)
        #expect(packet.transmitterBattery == 214)
        #expect(packet.bridgeBattery == 87)
        #expect(packet.transmitterID == 0x0065_2D8D)
        #expect(packet.delay == nil)
        #expect(packet.protocolLevel == 1)
        #expect(packet.encoded == Self.shortData)
    }

    @Test func decodesTheBeacon() throws {
        #expect(try XBridgePacket(decoding: Self.beacon) == .beacon(XBridgeBeacon(transmitterID: 0x0065_2D8D, protocolLevel: 1)))
        #expect(XBridgeBeacon(transmitterID: 0x0065_2D8D).encoded == Self.beacon)
    }

    @Test func aLoneZeroIsTheNullPacket() throws {
        #expect(try XBridgePacket(decoding: [0x00]) == .null)
    }

    // dexdrip.c `print_packet` "%lu %hhu %d", the example of docs/protocols/xbridge.md §ASCII
    // packet; the LimiTTer 4-field form; trailing CR/LF/NUL from other firmware.
    @Test(arguments: [
        ("123632 218 0", XBridgeASCIIPacket(raw: 123_632, transmitterBattery: 218, bridgeBattery: 0)),
        ("123632 218 3712\r\n", XBridgeASCIIPacket(raw: 123_632, transmitterBattery: 218, bridgeBattery: 3712)),
        ("98000 210 -1\u{0}", XBridgeASCIIPacket(raw: 98000, transmitterBattery: 210, bridgeBattery: -1)),
        ("150000 215 80 1440", XBridgeASCIIPacket(raw: 150_000, transmitterBattery: 215, bridgeBattery: 80, sensorAge: .seconds(86400))),
    ])
    func decodesASCII(text: String, expected: XBridgeASCIIPacket) throws {
        #expect(try XBridgePacket(decoding: Array(text.utf8)) == .ascii(expected))
    }

    static let malformed: [(String, [UInt8])] = [
        ("empty", [UInt8]()),
        ("data packet one byte short", Array(longData.dropLast())),
        ("data packet one byte long", longData + [0x00]),
        ("short data packet with the long length byte", [0x15] + shortData.dropFirst()),
        ("unknown data size", [UInt8](hex: "10 00 f0 e2 01 00 e0 c5 03 00 d6 57 8d 2d 65 00")),
        ("beacon of the stale header length 6", [UInt8](hex: "06 f1 8d 2d 65 00")),
        ("beacon too long", beacon + [0x00]),
        ("beacon truncated", Array(beacon.prefix(5))),
        ("early xdripswift beacon type 0xD6", [UInt8](hex: "07 d6 8d 2d 65 00 01")),
        ("ASCII with two fields", Array("123632 218".utf8)),
        ("ASCII with five fields", Array("1 2 3 4 5".utf8)),
        ("ASCII with a letter", Array("12a632 218 0".utf8)),
        ("ASCII raw beyond u32", Array("4294967296 218 0".utf8)),
        ("ASCII battery beyond u8", Array("123632 256 0".utf8)),
        ("ASCII negative raw", Array("-5 218 0".utf8)),
        ("ASCII impossible sensor age", Array("123632 218 0 99999".utf8)),
        ("binary noise", [UInt8](hex: "ff fe fd")),
    ]

    @Test(arguments: malformed)
    func rejects(_ name: String, bytes: [UInt8]) {
        #expect(throws: WireError.self, "\(name)") { try XBridgePacket(decoding: bytes) }
    }

    @Test func commandsEncode() throws {
        #expect(XBridgeCommand.acknowledge.encoded == [0x02, 0xF0])
        #expect(XBridgeCommand.setTransmitterID(try XBridgeTransmitterID("6ABCD")).encoded == [UInt8](hex: "06 01 8d 2d 65 00"))
        // docs/protocols/xbridge.md §Transmitter ID vector, u32le.
        #expect(XBridgeCommand.setTransmitterID(try XBridgeTransmitterID("ABCDE")).encoded == [UInt8](hex: "06 01 ae b1 a5 00"))
    }
}
