import Testing
import Wire
@testable import Bluetooth

/// UUIDs within the Bluetooth Base UUID `00000000-0000-1000-8000-00805F9B34FB`
/// (Core v5.4 Vol 3 Part B §2.5.1) and the Dexcom CGM service (docs/protocols/dexcom-g5-g6.md §GATT
/// layout).
struct BluetoothUUIDTests {
    static let dexcomText = "F8083532-849E-531C-C594-30F1F86A4EA5"
    /// The Dexcom UUID reversed, as it appears in a 128-bit AD list or an ATT PDU.
    static let dexcomWire = [UInt8](hex: "A5 4E 6A F8 F1 30 94 C5 1C 53 9E 84 32 35 08 F8")

    @Test func sixteenBitUUIDExpandsIntoTheBase() throws {
        let hr = BluetoothUUID(0x180D)
        #expect(hr.high == 0x0000_180D_0000_1000)
        #expect(hr.low == 0x8000_0080_5F9B_34FB)
        #expect(hr.uuid16 == 0x180D)
        #expect(hr.uuid32 == 0x0000_180D)
        #expect(hr.description == "180D")
        #expect(hr == (try #require(BluetoothUUID("0000180D-0000-1000-8000-00805F9B34FB"))))
        #expect(hr == 0x180D as BluetoothUUID)
    }

    @Test(arguments: ["180D", "180d", "0x180D", "0X180d", "0000180D", "0000180d-0000-1000-8000-00805f9b34fb"])
    func parsesEverySpellingOfTheSameUUID(_ text: String) {
        #expect(BluetoothUUID(text) == BluetoothUUID(0x180D))
    }

    @Test func thirtyTwoBitUUID() throws {
        let u = BluetoothUUID(uuid32: 0x1234_5678)
        #expect(u.high == 0x1234_5678_0000_1000)
        #expect(u.uuid16 == nil)
        #expect(u.uuid32 == 0x1234_5678)
        #expect(u.description == "12345678-0000-1000-8000-00805F9B34FB")
        #expect(BluetoothUUID("12345678") == u)
        #expect(BluetoothUUID(wireBytes: [0x78, 0x56, 0x34, 0x12]) == u)
        #expect(u.wireBytes.count == 16, "the shortest ATT form of a 32-bit UUID is 128-bit")
        #expect(u.wireBytes == u.wireBytes128)
    }

    @Test func dexcomServiceUUID() throws {
        let u = try #require(BluetoothUUID(Self.dexcomText))
        #expect(u.high == 0xF808_3532_849E_531C)
        #expect(u.low == 0xC594_30F1_F86A_4EA5)
        #expect(u.uuid16 == nil)
        #expect(u.uuid32 == nil)
        #expect(u.description == Self.dexcomText)
        #expect(u.wireBytes == Self.dexcomWire)
        #expect(u.wireBytes128 == Self.dexcomWire)
        #expect(BluetoothUUID(wireBytes: Self.dexcomWire) == u)
        #expect(BluetoothUUID(Self.dexcomText.lowercased()) == u)
        #expect(BluetoothUUID(Self.dexcomText.filter { $0 != "-" }) == u)
    }

    @Test func wireBytesOfASixteenBitUUID() {
        let u = BluetoothUUID(0xFEBC)
        #expect(u.wireBytes == [0xBC, 0xFE])
        #expect(u.wireBytes128 == [UInt8](hex: "FB 34 9B 5F 80 00 00 80 00 10 00 00 BC FE 00 00"))
        #expect(BluetoothUUID(wireBytes: [0xBC, 0xFE]) == u)
        #expect(BluetoothUUID(wireBytes: u.wireBytes128) == u, "the 128-bit form of a based UUID is the same UUID")
        var w = ByteWriter()
        w.write(u)
        #expect(w.bytes == [0xBC, 0xFE])
    }

    @Test(arguments: [0, 1, 3, 5, 15, 17])
    func wireBytesOfImpossibleWidthsAreRejected(_ count: Int) {
        #expect(BluetoothUUID(wireBytes: [UInt8](repeating: 0x11, count: count)) == nil)
    }

    @Test(arguments: [
        "", "18", "180", "180DA", "0x", "zzzz", "180D-", "1234567", "123456789",
        "F8083532-849E-531C-C594-30F1F86A4EA", "F8083532-849E-531C-C594-30F1F86A4EA5A",
        "G8083532-849E-531C-C594-30F1F86A4EA5",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(BluetoothUUID(text) == nil)
    }

    /// `UInt16(_:radix:)` and `UInt32(_:radix:)` accept a leading sign, so "+180" parses as 0x0180.
    @Test(arguments: ["+180", "+2345678"])
    func rejectsASignedShortForm(_ text: String) {
        #expect(BluetoothUUID(text) == nil)
    }

    /// A UUID that differs from the base in the low half is not a 16-bit alias.
    @Test func nearMissOfTheBaseIsNotAnAlias() throws {
        let u = try #require(BluetoothUUID("0000180D-0000-1000-8000-00805F9B34FC"))
        #expect(u.uuid16 == nil)
        #expect(u != BluetoothUUID(0x180D))
        #expect(u.description == "0000180D-0000-1000-8000-00805F9B34FC")
        let v = try #require(BluetoothUUID("0000180D-0000-1001-8000-00805F9B34FB"))
        #expect(v.uuid16 == nil)
    }

    @Test func ordering() {
        #expect(BluetoothUUID(0x1800) < BluetoothUUID(0x1801))
        #expect(BluetoothUUID(high: 1, low: 5) < BluetoothUUID(high: 2, low: 0))
        #expect(BluetoothUUID(high: 1, low: 5) < BluetoothUUID(high: 1, low: 6))
    }
}
