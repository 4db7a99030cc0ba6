import Testing
import Wire
@testable import Bluetooth

/// AD structures `length · type · data` (Core v5.4 Vol 3 Part C §11; types from the Core
/// Specification Supplement Part A, BlueZ src/eir.h; docs/protocols/advertising-data.md). Payloads
/// are hand-built from those layouts unless a comment names another source.
struct AdvertisingDataTests {
    typealias T = AdvertisingData.ADType

    /// Flags (LE General Discoverable | BR/EDR not supported), the Dexcom service `0xFEBC` and
    /// the name "DexcomAB" (docs/protocols/dexcom-g5-g6.md §Discovery and identity: "Dexcom" + the
    /// last two transmitter ID characters).
    static let dexcom = [UInt8](hex: "02 01 06  03 03 BC FE  09 09 44 65 78 63 6F 6D 41 42")

    /// RuuviTag format 5 in manufacturer data, company 0x0499 (docs/protocols/ruuvi.md test
    /// vector), behind flags: exactly the 31 bytes of a legacy payload.
    static let ruuviPayload = [UInt8](hex: "05 12FC 5394 C37C 0004 FFFC 040C AC36 42 00CD CBB8334C884F")
    static let ruuvi = [UInt8](hex: "02 01 06  1B FF 99 04") + ruuviPayload

    @Test func flagsServiceAndCompleteName() throws {
        let ad = try AdvertisingData(Self.dexcom)
        #expect(ad.structureCount == 3)
        #expect(ad.flags == 0x06)
        #expect(ad.name == "DexcomAB")
        #expect(ad.nameIsComplete)
        #expect(ad.nameRange == 9..<17)
        #expect(ad.serviceUUIDs == [BluetoothUUID(0xFEBC)])
        #expect(ad.advertises(BluetoothUUID(0xFEBC)))
        #expect(!ad.advertises(BluetoothUUID(0x180D)))
        #expect(ad.txPower == nil)
        #expect(ad.appearance == nil)
        #expect(ad.serviceData.isEmpty)
        #expect(ad.manufacturerData.isEmpty)
    }

    @Test func ruuviManufacturerData() throws {
        #expect(Self.ruuvi.count == 31)
        let ad = try AdvertisingData(Self.ruuvi)
        #expect(ad.structureCount == 2)
        #expect(ad.flags == 0x06)
        #expect(ad.manufacturerData.count == 1)
        #expect(ad.manufacturerData.first?.company == 0x0499)
        #expect(ad.manufacturerData(company: 0x0499) == Self.ruuviPayload)
        #expect(ad.manufacturerData(company: 0x0059) == nil)
        #expect(ad.name == nil)
        #expect(ad.serviceUUIDs.isEmpty)
    }

    @Test func shortenedNameIsKeptUntilACompleteOneArrives() throws {
        let shortened = try AdvertisingData([UInt8](hex: "04 08 44 65 78"))
        #expect(shortened.name == "Dex")
        #expect(!shortened.nameIsComplete)

        let shortFirst = try AdvertisingData([UInt8](hex: "04 08 44 65 78  07 09 44 65 78 63 6F 6D"))
        #expect(shortFirst.name == "Dexcom")
        #expect(shortFirst.nameIsComplete)

        let completeFirst = try AdvertisingData([UInt8](hex: "07 09 44 65 78 63 6F 6D  04 08 44 65 78"))
        #expect(completeFirst.name == "Dexcom")
        #expect(completeFirst.nameIsComplete)

        let twoComplete = try AdvertisingData([UInt8](hex: "02 09 41  02 09 42"))
        #expect(twoComplete.name == "A", "the first complete name wins")
    }

    @Test func emptyAndInvalidUTF8Names() throws {
        let empty = try AdvertisingData([UInt8](hex: "01 09"))
        #expect(empty.name == "")
        #expect(empty.nameIsComplete)
        let hostile = try AdvertisingData([UInt8](hex: "03 09 FF 41"))
        #expect(hostile.name == "\u{FFFD}A")
    }

    @Test func everyUUIDListWidth() throws {
        let ad = try AdvertisingData([UInt8](hex: """
            05 02 0D 18 0F 18
            05 05 78 56 34 12
            11 07 A5 4E 6A F8 F1 30 94 C5 1C 53 9E 84 32 35 08 F8
            05 04 0A 18 00 00
            01 03
            """))
        #expect(ad.structureCount == 5)
        #expect(ad.uuidLists.map(\.width) == [2, 4, 16, 4, 2])
        #expect(ad.uuidLists.map(\.range.count) == [4, 4, 16, 4, 0])
        let dexcom = try #require(BluetoothUUID("F8083532-849E-531C-C594-30F1F86A4EA5"))
        #expect(ad.serviceUUIDs == [
            BluetoothUUID(0x180D), BluetoothUUID(0x180F), BluetoothUUID(uuid32: 0x1234_5678), dexcom, BluetoothUUID(0x180A),
        ])
        #expect(ad.advertises(BluetoothUUID(0x180D)))
        #expect(ad.advertises(BluetoothUUID(0x180F)))
        #expect(ad.advertises(BluetoothUUID(uuid32: 0x1234_5678)))
        #expect(ad.advertises(dexcom))
        #expect(ad.advertises(BluetoothUUID(0x180A)), "a 16-bit UUID sent in a 32-bit list")
        #expect(!ad.advertises(BluetoothUUID(0x1808)))
        #expect(!ad.advertises(BluetoothUUID(uuid32: 0x1234_5679)))
    }

    /// The Heart Rate service sent in its 128-bit form is the same service.
    @Test func sixteenBitUUIDInA128BitList() throws {
        var b = AdvertisingData.Builder()
        b.uuids128([BluetoothUUID(0x180D)])
        let ad = try AdvertisingData(b.bytes)
        #expect(b.bytes == [0x11, 0x07] + BluetoothUUID(0x180D).wireBytes128)
        #expect(ad.advertises(BluetoothUUID(0x180D)))
        #expect(ad.serviceUUIDs == [BluetoothUUID(0x180D)])
    }

    @Test func serviceDataOfEveryWidth() throws {
        let dexcom = try #require(BluetoothUUID("F8083532-849E-531C-C594-30F1F86A4EA5"))
        let ad = try AdvertisingData([UInt8](hex: """
            06 16 D2 FC 40 02 C4
            07 20 78 56 34 12 AA BB
            13 21 A5 4E 6A F8 F1 30 94 C5 1C 53 9E 84 32 35 08 F8 CC DD
            03 16 0F 18
            """))
        #expect(ad.serviceData.count == 4)
        // BTHome v2 (docs/protocols/bthome.md): UUID 0xFCD2, then the device-info byte 0x40 and
        // objects.
        #expect(ad.serviceData(for: BluetoothUUID(0xFCD2)) == [0x40, 0x02, 0xC4])
        #expect(ad.serviceData(for: BluetoothUUID(uuid32: 0x1234_5678)) == [0xAA, 0xBB])
        #expect(ad.serviceData(for: dexcom) == [0xCC, 0xDD])
        #expect(ad.serviceData(for: BluetoothUUID(0x180F)) == [], "a UUID with no data is present but empty")
        #expect(ad.serviceData(for: BluetoothUUID(0x180D)) == nil)
        #expect(ad.serviceUUIDs.isEmpty, "service data is not a UUID list")
    }

    @Test func txPowerAndAppearance() throws {
        let ad = try AdvertisingData([UInt8](hex: "02 0A F4  03 19 41 03"))
        #expect(ad.txPower == -12)
        #expect(ad.appearance == 0x0341)  // Heart Rate Sensor: Heart Rate Belt
        #expect(ad.structureCount == 2)
    }

    @Test func zeroLengthEndsTheSignificantPart() throws {
        // A 31-byte legacy payload: flags, then zero padding.
        let padded = [UInt8](hex: "02 01 06") + [UInt8](repeating: 0, count: 28)
        let ad = try AdvertisingData(padded)
        #expect(ad.structureCount == 1)
        #expect(ad.flags == 0x06)
        // Whatever follows the terminator is not parsed, even if it would be malformed.
        let garbage = try AdvertisingData([UInt8](hex: "02 01 05 00 FF FF FF"))
        #expect(garbage.structureCount == 1)
        #expect(garbage.flags == 0x05)
        #expect(garbage.manufacturerData.isEmpty)
    }

    @Test func unknownTypesAreSkippedByLength() throws {
        // 0x14 solicitation, 0x2A mesh message, 0x3D: none interpreted, all counted.
        let ad = try AdvertisingData([UInt8](hex: "03 14 0D 18  04 2A 01 02 03  01 3D  02 0A 00"))
        #expect(ad.structureCount == 4)
        #expect(ad.txPower == 0)
        #expect(ad.serviceUUIDs.isEmpty)
    }

    @Test func emptyData() throws {
        let ad = try AdvertisingData([UInt8]())
        #expect(ad.structureCount == 0)
        #expect(ad.flags == nil)
        #expect(ad.name == nil)
        #expect(!ad.nameIsComplete)
    }

    /// Reports hand the parser a slice of the event buffer: ranges index that buffer.
    @Test func parsesASliceInPlace() throws {
        let event = [UInt8](hex: "3E 99 99") + Self.dexcom + [0xC5]
        let slice = event[3..<(3 + Self.dexcom.count)]
        let ad = try AdvertisingData(slice)
        #expect(ad.name == "DexcomAB")
        #expect(ad.nameRange == 12..<20)
        #expect(ad.advertises(BluetoothUUID(0xFEBC)))
        #expect(ad == (try AdvertisingData(Self.dexcom)), "equality is on the bytes, not on their indices")
        #expect(throws: AdvertisingData.ParseError.structureOverrunsData(offset: 0, length: 0x3E)) {
            try AdvertisingData(event[0...])
        }
    }

    @Test func builderWritesWhatTheParserReads() throws {
        var b = AdvertisingData.Builder()
        b.flags(0x06)
        b.completeName("Polar H10")
        b.uuids16([0x180D, 0x180F])
        b.appearance(0x0341)
        b.txPower(-4)
        b.serviceData16(0xFCD2, [0x40])
        b.manufacturerData(company: 0x006B, [0x01, 0x02])
        #expect(b.bytes == [UInt8](hex: """
            02 01 06  0A 09 50 6F 6C 61 72 20 48 31 30  05 03 0D 18 0F 18  03 19 41 03  02 0A FC
            04 16 D2 FC 40  05 FF 6B 00 01 02
            """))
        let ad = try AdvertisingData(b.bytes)
        #expect(ad.structureCount == 7)
        #expect(ad.flags == 0x06)
        #expect(ad.name == "Polar H10")
        #expect(ad.serviceUUIDs == [BluetoothUUID(0x180D), BluetoothUUID(0x180F)])
        #expect(ad.appearance == 0x0341)
        #expect(ad.txPower == -4)
        #expect(ad.serviceData(for: BluetoothUUID(0xFCD2)) == [0x40])
        #expect(ad.manufacturerData(company: 0x006B) == [0x01, 0x02])
    }

    @Test func errorDescriptions() {
        #expect(AdvertisingData.ParseError.structureOverrunsData(offset: 3, length: 9).description
            == "AD structure at offset 3 claims 9 byte(s), past the end of the data")
        #expect(AdvertisingData.ParseError.wrongLength(type: 0x0A, length: 2).description
            == "AD type 0xa has an impossible length 2")
    }

    static let rejections: [(hex: String, error: AdvertisingData.ParseError)] = [
        ("05 09 41 42", .structureOverrunsData(offset: 0, length: 5)),
        ("02 01", .structureOverrunsData(offset: 0, length: 2)),
        ("02 01 06  03 03 0D", .structureOverrunsData(offset: 3, length: 3)),
        ("02 01 06  FF", .structureOverrunsData(offset: 3, length: 255)),
        ("01 01", .wrongLength(type: T.flags, length: 0)),
        ("01 0A", .wrongLength(type: T.txPowerLevel, length: 0)),
        ("03 0A 00 00", .wrongLength(type: T.txPowerLevel, length: 2)),
        ("02 19 41", .wrongLength(type: T.appearance, length: 1)),
        ("04 19 41 03 00", .wrongLength(type: T.appearance, length: 3)),
        ("02 02 0D", .wrongLength(type: T.incompleteUUID16, length: 1)),
        ("04 03 0D 18 0F", .wrongLength(type: T.completeUUID16, length: 3)),
        ("04 05 01 02 03", .wrongLength(type: T.completeUUID32, length: 3)),
        ("06 04 01 02 03 04 05", .wrongLength(type: T.incompleteUUID32, length: 5)),
        ("10 07 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F", .wrongLength(type: T.completeUUID128, length: 15)),
        ("12 06 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F 10 11", .wrongLength(type: T.incompleteUUID128, length: 17)),
        ("02 16 D2", .wrongLength(type: T.serviceData16, length: 1)),
        ("04 20 01 02 03", .wrongLength(type: T.serviceData32, length: 3)),
        ("10 21 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F", .wrongLength(type: T.serviceData128, length: 15)),
        ("01 FF", .wrongLength(type: T.manufacturerSpecific, length: 0)),
        ("02 FF 99", .wrongLength(type: T.manufacturerSpecific, length: 1)),
        ("02 01 06  02 0A", .structureOverrunsData(offset: 3, length: 2)),
        ("02 01 06  03 0A 00 00", .wrongLength(type: T.txPowerLevel, length: 2)),
    ]

    @Test(arguments: rejections)
    func rejectsMalformedData(_ hex: String, _ error: AdvertisingData.ParseError) {
        #expect(throws: error) { try AdvertisingData([UInt8](hex: hex)) }
    }

    /// Every truncation of a valid payload either parses or throws: none traps.
    @Test func everyTruncationOfAValidPayloadIsHandled() {
        for n in 0...Self.ruuvi.count {
            let prefix = Array(Self.ruuvi.prefix(n))
            let parses = (try? AdvertisingData(prefix)) != nil
            // 0, 3 (after the flags) and 31 (everything) are the only structure boundaries.
            #expect(parses == [0, 3, 31].contains(n), "prefix of \(n) byte(s)")
        }
    }

    /// Seeded random payloads (SplitMix64): each parses or throws a ParseError; a trap fails the run.
    @Test func randomPayloadsParseOrThrow() {
        var state: UInt64 = 0xAD
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var parsed = 0
        var rejected = 0
        for _ in 0..<5_000 {
            // Small length bytes and known types make deep parses likely.
            let count = Int(next() % 32)
            let bytes = (0..<count).map { i -> UInt8 in
                let r = next()
                return i % 3 == 0 ? UInt8(r % 6) : i % 3 == 1 ? [0x01, 0x03, 0x05, 0x07, 0x09, 0x0A, 0x16, 0x19, 0x20, 0x21, 0xFF][Int(r % 11)] : UInt8(truncatingIfNeeded: r)
            }
            do {
                let ad = try AdvertisingData(bytes)
                _ = (ad.name, ad.serviceUUIDs, ad.advertises(BluetoothUUID(0x180D)), ad.serviceData(for: BluetoothUUID(0xFCD2)))
                parsed += 1
            } catch {
                rejected += 1
            }
        }
        #expect(parsed > 100)
        #expect(rejected > 100)
    }
}
