import Bluetooth
import Testing
import Wire
@testable import Transmitters

@Suite struct BTHomePacketTests {
    static let mac = Address(value: 0x54_48_E6_8F_80_A5)  // 54:48:E6:8F:80:A5
    static let key = [UInt8](hex: "231d39c1d7cc1ab1aee224cd096db932")
    /// Encrypted service data (device info 0x41, objects 02CA09 03BF13, counter 0x00112233 sent
    /// as 33 22 11 00, advertiser 54:48:E6:8F:80:A5), computed independently with Python
    /// `cryptography` 46 in the Bumble venv:
    /// `AESCCM(key, tag_length=4).encrypt(mac + b"\xd2\xfc\x41" + counter, payload, None)`,
    /// then laid out as info · ciphertext · counter · MIC.
    static let encrypted = [UInt8](hex: "41 e445f3c9962b 33221100 6c7c4519")

    func number(_ packet: BTHomePacket, _ quantity: BTHomeObject.Quantity) -> Double? {
        if case let .number(value)? = packet.first(quantity)?.value { return value }
        return nil
    }

    @Test func plainPacketEveryField() throws {
        // Hand-assembled from docs/protocols/bthome.md: v2 plain (0x40), packet id 9, battery 97 %,
        // temperature 25.06 °C, humidity 50.55 %.
        let packet = try BTHomePacket(decoding: [UInt8](hex: "40 0009 0161 02CA09 03BF13"), advertiser: Self.mac)
        #expect(packet.deviceInformation.rawValue == 0x40)
        #expect(packet.deviceInformation.version == 2)
        #expect(!packet.deviceInformation.isEncrypted)
        #expect(!packet.deviceInformation.isMACIncluded)
        #expect(!packet.deviceInformation.isTriggerBased)
        #expect(packet.mac == nil)
        #expect(packet.counter == nil)
        #expect(packet.stoppedAt == nil)
        #expect(packet.objects.map(\.id) == [0x00, 0x01, 0x02, 0x03])
        #expect(packet.packetID == 9)
        #expect(number(packet, .battery) == 97)
        #expect(abs(number(packet, .temperature)! - 25.06) < 1e-9)
        #expect(abs(number(packet, .humidity)! - 50.55) < 1e-9)
    }

    @Test func macIncludedAndTriggerBased() throws {
        // 0x46: v2, MAC included, trigger-based. The MAC is sent least significant byte first.
        let packet = try BTHomePacket(decoding: [UInt8](hex: "46 A5808FE64854 3A01"), advertiser: Address(value: 1))
        #expect(packet.deviceInformation.isMACIncluded)
        #expect(packet.deviceInformation.isTriggerBased)
        #expect(packet.mac == Self.mac)
        #expect(packet.objects == [BTHomeObject(id: 0x3A, value: .state(1))])
    }

    @Test func encryptedVectorDecrypts() throws {
        let packet = try BTHomePacket(decoding: Self.encrypted, advertiser: Self.mac, key: Self.key)
        #expect(packet.deviceInformation.isEncrypted)
        #expect(packet.counter == 0x0011_2233)
        #expect(packet.objects.map(\.id) == [0x02, 0x03])
        #expect(abs(number(packet, .temperature)! - 25.06) < 1e-9)
        #expect(abs(number(packet, .humidity)! - 50.55) < 1e-9)
    }

    /// Captured through the real binary: `vigil scan --json` against
    /// `Tests/Rigs/bthome_thermometer.py --key 231d…b932` (address C4:11:22:33:44:66), whose log
    /// line for it read packetId 2, battery 93, 3.0 °C, 53.34 %, counter 1002.
    @Test func packetCapturedFromTheBumbleRig() throws {
        let packet = try BTHomePacket(decoding: [UInt8](hex: "416c9a369d75f48aa333b1ea03000058e29115"),
                                      advertiser: Address(value: 0xC4_11_22_33_44_66), key: Self.key)
        #expect(packet.counter == 1002)
        #expect(packet.objects.map(\.id) == [0x00, 0x01, 0x02, 0x03])
        #expect(packet.packetID == 2)
        #expect(number(packet, .battery) == 93)
        #expect(number(packet, .temperature) == 3.0)
        #expect(abs(number(packet, .humidity)! - 53.34) < 1e-9)
    }

    @Test func encoderReproducesThePythonVector() {
        let objects = [BTHomeObject(id: 0x02, value: .number(25.06)), BTHomeObject(id: 0x03, value: .number(50.55))]
        #expect(BTHomePacket.serviceData(objects, advertiser: Self.mac, key: Self.key, counter: 0x0011_2233) == Self.encrypted)
        #expect(BTHomePacket.serviceData(objects, advertiser: Self.mac) == [UInt8](hex: "40 02CA09 03BF13"))
    }

    @Test func encryptedWithMACIncludedUsesThatMACInTheNonce() throws {
        let objects = [BTHomeObject(id: 0x45, value: .number(4.5))]
        let data = try #require(BTHomePacket.serviceData(objects, advertiser: Self.mac, key: Self.key, counter: 7, includeMAC: true))
        #expect(data[0] == 0x43)
        // The advertiser address (e.g. a resolvable private one) is not the nonce's MAC here.
        let packet = try BTHomePacket(decoding: data, advertiser: Address(value: 0x11_22_33_44_55_66), key: Self.key)
        #expect(packet.mac == Self.mac)
        #expect(packet.counter == 7)
        #expect(packet.objects == objects)
    }

    @Test func nonceLayout() {
        let info = BTHomePacket.DeviceInformation(encrypted: true)
        #expect(info.rawValue == 0x41)
        #expect(BTHomePacket.nonce(mac: Self.mac, deviceInformation: info, counterBytes: [0x33, 0x22, 0x11, 0x00])
            == [UInt8](hex: "5448e68f80a5 d2fc 41 33221100"))
    }

    @Test func unknownIDStopsParsingAndKeepsWhatCameBefore() throws {
        // 0x06 (mass in later BTHome versions) is not in the table: its size is unknown.
        let packet = try BTHomePacket(decoding: [UInt8](hex: "40 02CA09 06 0102 03BF13"), advertiser: Self.mac)
        #expect(packet.objects.map(\.id) == [0x02])
        #expect(packet.stoppedAt == BTHomePacket.UnknownObject(id: 0x06, unreadBytes: 6))
    }

    @Test func wrongKeyIsNotAuthentic() {
        var key = Self.key
        key[0] ^= 0xFF
        #expect(throws: BTHomeError.notAuthentic) { _ = try BTHomePacket(decoding: Self.encrypted, advertiser: Self.mac, key: key) }
        // The wrong advertiser address changes the nonce just the same.
        #expect(throws: BTHomeError.notAuthentic) {
            _ = try BTHomePacket(decoding: Self.encrypted, advertiser: Address(value: 0x5448_E68F_80A6), key: Self.key)
        }
        #expect(throws: BTHomeError.noKey) { _ = try BTHomePacket(decoding: Self.encrypted, advertiser: Self.mac) }
        // A key of the wrong size is refused, never handed to AES.
        #expect(throws: BTHomeError.invalidKeyLength(15)) {
            _ = try BTHomePacket(decoding: Self.encrypted, advertiser: Self.mac, key: Array(Self.key.dropLast()))
        }
    }

    @Test(arguments: [
        ([UInt8](), "device information"),
        ([0x20, 0x02, 0xCA, 0x09], "version 1"),
        ([0x60], "version 3"),
        ([0x00], "version 0"),
        ([0x42, 0xA5, 0x80, 0x8F], "MAC"),
        ([0x40, 0x02, 0xCA], "object value"),
        ([0x40, 0x53, 0x05, 0x41], "object value"),
        ([0x41, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08], "counter and MIC"),
    ] as [([UInt8], String)])
    func rejections(bytes: [UInt8], mentions: String) {
        do {
            _ = try BTHomePacket(decoding: bytes, advertiser: Self.mac, key: Self.key)
            Issue.record("accepted \(bytes.hexString)")
        } catch {
            #expect("\(error)".contains(mentions), "\(error)")
        }
    }

    @Test func emptyPayloadIsAValidPacketWithNothingInIt() throws {
        let packet = try BTHomePacket(decoding: [0x40], advertiser: Self.mac)
        #expect(packet.objects.isEmpty)
        #expect(packet.stoppedAt == nil)
    }
}
