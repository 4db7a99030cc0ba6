import Testing
import Bluetooth
import Wire
@testable import HCI

/// LE Advertising Report (§7.7.65.2) and LE Extended Advertising Report (§7.7.65.13).
/// Legacy vectors follow docs/protocols/hci.md §Events; the extended ones are built byte by byte
/// from the §7.7.65.13 field list: Event_Type u16 · Address_Type · Address[6] · Primary_PHY ·
/// Secondary_PHY · Advertising_SID · TX_Power i8 · RSSI i8 · Periodic_Advertising_Interval u16 ·
/// Direct_Address_Type · Direct_Address[6] · Data_Length · Data (24 bytes + data).
struct AdvertisingReportTests {
    static let peer = Address(value: 0xC011_2233_4455)
    static let peerWire = "55 44 33 22 11 C0"
    /// Flags, the Dexcom service 0xFEBC and the name "DexcomAB" (docs/protocols/dexcom-g5-g6.md
    /// §Discovery and identity): 17 bytes.
    static let dexcomAD = "02 01 06 03 03 BC FE 09 09 44 65 78 63 6F 6D 41 42"

    static func extendedReport(eventType: UInt16, addressType: UInt8 = 0x01, address: String = peerWire, rssi: UInt8 = 0xC5, data: String) -> String {
        let d = [UInt8](hex: data)
        return String(format16: eventType) + " \(Hex.encode([addressType])) \(address) 01 00 FF 7F \(Hex.encode([rssi])) 00 00 00 00 00 00 00 00 00 "
            + Hex.encode([UInt8(d.count)]) + " " + data
    }

    // MARK: legacy

    @Test func oneLegacyReport() throws {
        let bytes = [UInt8](hex: "3E 1D 02 01 00 01 \(Self.peerWire) 11 \(Self.dexcomAD) C5")
        #expect(bytes.count == 2 + 29)
        let event = try HCI.Event(bytes: bytes)
        guard case .le(.advertisingReports(let reports)) = event, let r = reports.first else { Issue.record("got \(event)"); return }
        #expect(reports.count == 1)
        #expect(r.kind == .connectableUndirected)
        #expect(r.isConnectable)
        #expect(r.address == DeviceAddress(Self.peer, type: .random))
        #expect(r.rssi == -59)
        #expect(Array(r.data) == [UInt8](hex: Self.dexcomAD))
        #expect(r.data.startIndex == 13, "the data is a slice of the event buffer")
        #expect(!r.isExtended)
        let ad = try AdvertisingData(r.data)
        #expect(ad.name == "DexcomAB")
        #expect(ad.advertises(BluetoothUUID(0xFEBC)))
    }

    /// Two reports back to back, report-major as BlueZ parses them (monitor/packet.c).
    @Test func twoLegacyReportsInOneEvent() throws {
        let bytes = [UInt8](hex: """
            3E 19 02 02
            00 00 0F 0E 0D 0C 0B 0A 03 02 01 06 D8
            04 01 \(Self.peerWire) 00 7F
            """)
        let event = try HCI.Event(bytes: bytes)
        #expect(event == .le(.advertisingReports([
            .init(kind: .connectableUndirected, address: DeviceAddress(Address(value: 0x0A0B_0C0D_0E0F), type: .public), rssi: -40, data: [0x02, 0x01, 0x06]),
            .init(kind: .scanResponse, address: DeviceAddress(Self.peer, type: .random), rssi: nil, data: []),
        ])))
    }

    @Test(arguments: [
        (UInt8(0x00), HCI.AdvertisingReport.Kind.connectableUndirected, true),
        (0x01, .connectableDirected, true),
        (0x02, .scannableUndirected, false),
        (0x03, .nonConnectable, false),
        (0x04, .scanResponse, false),
    ])
    func legacyEventTypes(_ type: UInt8, _ kind: HCI.AdvertisingReport.Kind, _ connectable: Bool) throws {
        let event = try HCI.Event(bytes: leMetaEvent("02 01 \(Hex.encode([type])) 00 \(Self.peerWire) 00 C5"))
        guard case .le(.advertisingReports(let reports)) = event else { Issue.record("got \(event)"); return }
        #expect(reports.map(\.kind) == [kind])
        #expect(reports.map(\.isConnectable) == [connectable])
    }

    /// The full 31-byte payload is the largest legal one.
    @Test func legacyReportWith31Bytes() throws {
        let data = [UInt8](repeating: 0, count: 31)
        let event = try HCI.Event(bytes: leMetaEvent("02 01 03 00 \(Self.peerWire) 1F \(Hex.encode(data)) A0"))
        guard case .le(.advertisingReports(let reports)) = event else { Issue.record("got \(event)"); return }
        #expect(reports.first?.data.count == 31)
        #expect(reports.first?.rssi == -96)
    }

    @Test func legacyEventBytesRoundTrip() throws {
        let report = HCI.AdvertisingReport(kind: .connectableUndirected, address: DeviceAddress(Self.peer, type: .random), rssi: -59, data: [UInt8](hex: Self.dexcomAD)[...])
        #expect(report.legacyEventBytes == [UInt8](hex: "3E 1D 02 01 00 01 \(Self.peerWire) 11 \(Self.dexcomAD) C5"))
        #expect(try HCI.Event(bytes: report.legacyEventBytes) == .le(.advertisingReports([report])))

        let silent = HCI.AdvertisingReport(kind: .nonConnectable, address: DeviceAddress(Self.peer, type: .public), rssi: nil, data: [])
        #expect(silent.legacyEventBytes == [UInt8](hex: "3E 0C 02 01 03 00 \(Self.peerWire) 00 7F"))
        #expect(try HCI.Event(bytes: silent.legacyEventBytes) == .le(.advertisingReports([silent])))
    }

    @Test(arguments: [
        ("02 00", WireError.invalidValue(field: "Num_Reports", value: 0)),
        ("02 01 05 00 \(peerWire) 00 C5", .invalidValue(field: "Event_Type", value: 5)),
        ("02 01 00 04 \(peerWire) 00 C5", .invalidValue(field: "Address_Type", value: 4)),
        ("02 01 00 00 \(peerWire) 20 \(String(repeating: "00 ", count: 32)) C5", .invalidValue(field: "Data_Length", value: 32)),
        ("02 01 00 00 \(peerWire) 05 01 02", .truncated(field: "Data", needed: 5, available: 2)),
        ("02 01 00 00 \(peerWire) 02 01 02", .truncated(field: "RSSI", needed: 1, available: 0)),
        ("02 01 00 00 01 02 03", .truncated(field: "Address", needed: 6, available: 3)),
        ("02 01 00", .truncated(field: "Address_Type", needed: 1, available: 0)),
        ("02", .truncated(field: "Num_Reports", needed: 1, available: 0)),
        ("02 02 00 00 \(peerWire) 00 C5", .truncated(field: "Event_Type", needed: 1, available: 0)),
        ("02 01 00 00 \(peerWire) 00 C5 00", .trailingBytes(what: "event parameters", count: 1)),
    ])
    func legacyRejections(_ hex: String, _ error: WireError) {
        #expect(throws: error) { try HCI.Event(bytes: leMetaEvent(hex)) }
    }

    // MARK: extended

    @Test func oneExtendedReport() throws {
        let fields: [[UInt8]] = [
            [0x3E, 0x2B, 0x0D, 0x01],                 // LE Meta, 43 bytes, subevent 0x0D, Num_Reports 1
            [0x13, 0x00],                             // Event_Type: connectable | scannable | legacy (ADV_IND)
            [0x01],                                   // Address_Type: random
            [0x55, 0x44, 0x33, 0x22, 0x11, 0xC0],     // Address C0:11:22:33:44:55
            [0x01, 0x00],                             // Primary_PHY LE 1M, Secondary_PHY none
            [0xFF],                                   // Advertising_SID: none
            [0x7F],                                   // TX_Power: not available
            [0xC5],                                   // RSSI: -59 dBm
            [0x00, 0x00],                             // Periodic_Advertising_Interval: none
            [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00],  // Direct_Address_Type, Direct_Address
            [0x11],                                   // Data_Length: 17
            [UInt8](hex: Self.dexcomAD),              // Data
        ]
        let bytes = fields.flatMap { $0 }
        #expect(bytes.count == 2 + 2 + 24 + 17)
        #expect(bytes == leMetaEvent("0D 01 " + Self.extendedReport(eventType: 0x0013, data: Self.dexcomAD)), "the helper builds the same layout")
        let event = try HCI.Event(bytes: bytes)
        guard case .le(.advertisingReports(let reports)) = event, let r = reports.first else { Issue.record("got \(event)"); return }
        #expect(reports.count == 1)
        #expect(r.kind == .connectableUndirected)
        #expect(r.address == DeviceAddress(Self.peer, type: .random))
        #expect(r.rssi == -59)
        #expect(Array(r.data) == [UInt8](hex: Self.dexcomAD))
        #expect(r.data.startIndex == 2 + 2 + 24)
        #expect(r.isExtended)
    }

    /// Event_Type bits: 0 connectable, 1 scannable, 2 directed, 3 scan response, 4 legacy;
    /// bits 5–6 data status. Legacy PDUs arrive as 0x13 ADV_IND, 0x15 ADV_DIRECT_IND,
    /// 0x12 ADV_SCAN_IND, 0x10 ADV_NONCONN_IND, 0x1B/0x1A SCAN_RSP (§7.7.65.13 table).
    @Test(arguments: [
        (UInt16(0x0013), HCI.AdvertisingReport.Kind.connectableUndirected),
        (0x0015, .connectableDirected),
        (0x0012, .scannableUndirected),
        (0x0010, .nonConnectable),
        (0x001B, .scanResponse),
        (0x001A, .scanResponse),
        (0x0000, .nonConnectable),
        (0x0001, .connectableUndirected),
        (0x0002, .scannableUndirected),
        (0x0005, .connectableDirected),
        (0x0008, .scanResponse),
        (0x0021, .connectableUndirected),
    ])
    func extendedEventTypes(_ eventType: UInt16, _ kind: HCI.AdvertisingReport.Kind) throws {
        let event = try HCI.Event(bytes: leMetaEvent("0D 01 " + Self.extendedReport(eventType: eventType, data: "")))
        guard case .le(.advertisingReports(let reports)) = event else { Issue.record("got \(event)"); return }
        #expect(reports.map(\.kind) == [kind])
    }

    @Test func twoExtendedReportsAndALongPayload() throws {
        let parameters = "0D 02 " + Self.extendedReport(eventType: 0x0000, addressType: 0x00, address: "0F 0E 0D 0C 0B 0A", rssi: 0x7F, data: "29 FF 59 00 " + String(repeating: "AB ", count: 38))
            + " " + Self.extendedReport(eventType: 0x001B, data: "02 01 06")
        let event = try HCI.Event(bytes: leMetaEvent(parameters))
        guard case .le(.advertisingReports(let reports)) = event else { Issue.record("got \(event)"); return }
        #expect(reports.count == 2)
        #expect(reports[0].kind == .nonConnectable)
        #expect(reports[0].address == DeviceAddress(Address(value: 0x0A0B_0C0D_0E0F), type: .public))
        #expect(reports[0].rssi == nil, "127 means not available")
        #expect(reports[0].data.count == 42, "extended payloads may exceed 31 bytes")
        #expect(try AdvertisingData(reports[0].data).manufacturerData(company: 0x0059) == [UInt8](repeating: 0xAB, count: 38))
        #expect(reports[1].kind == .scanResponse)
        #expect(reports[1].address == DeviceAddress(Self.peer, type: .random))
        #expect(Array(reports[1].data) == [0x02, 0x01, 0x06])
        #expect(reports.map(\.isExtended) == [true, true])
    }

    @Test(arguments: [(UInt8(0x00), AddressType.public), (0x01, .random), (0x02, .publicIdentity), (0x03, .randomIdentity)])
    func extendedAddressTypes(_ wire: UInt8, _ type: AddressType) throws {
        let event = try HCI.Event(bytes: leMetaEvent("0D 01 " + Self.extendedReport(eventType: 0x0013, addressType: wire, data: "")))
        guard case .le(.advertisingReports(let reports)) = event else { Issue.record("got \(event)"); return }
        #expect(reports.map(\.address) == [DeviceAddress(Self.peer, type: type)])
    }

    /// Address_Type 0xFF: an anonymous advertiser. The decoder's own comment says it is
    /// reported as "a random all-zero address".
    @Test func anonymousExtendedAdvertiser() throws {
        let event = try HCI.Event(bytes: leMetaEvent("0D 01 " + Self.extendedReport(eventType: 0x0000, addressType: 0xFF, address: "00 00 00 00 00 00", data: "")))
        guard case .le(.advertisingReports(let reports)) = event, let r = reports.first else { Issue.record("got \(event)"); return }
        #expect(r.address.address == Address(value: 0))
        #expect(r.address.type == .random)
    }

    @Test(arguments: [
        ("0D 00", WireError.invalidValue(field: "Num_Reports", value: 0)),
        ("0D", .truncated(field: "Num_Reports", needed: 1, available: 0)),
        ("0D 01 13", .truncated(field: "Event_Type", needed: 2, available: 1)),
        ("0D 01 13 00 01 \(peerWire) 01 00", .truncated(field: "Primary_PHY/Secondary_PHY/Advertising_SID", needed: 3, available: 2)),
        ("0D 01 13 00 01 \(peerWire) 01 00 FF 7F C5 00 00 00 00 00", .truncated(field: "Direct_Address_Type/Direct_Address", needed: 7, available: 3)),
        ("0D 01 13 00 01 \(peerWire) 01 00 FF 7F C5 00 00 00 00 00 00 00 00 00", .truncated(field: "Data_Length", needed: 1, available: 0)),
        ("0D 01 13 00 01 \(peerWire) 01 00 FF 7F C5 00 00 00 00 00 00 00 00 00 03 02 01", .truncated(field: "Data", needed: 3, available: 2)),
        ("0D 01 13 00 01 \(peerWire) 01 00 FF 7F C5 00 00 00 00 00 00 00 00 00 00 EE", .trailingBytes(what: "event parameters", count: 1)),
        ("0D 02 13 00 01 \(peerWire) 01 00 FF 7F C5 00 00 00 00 00 00 00 00 00 00", .truncated(field: "Event_Type", needed: 2, available: 0)),
    ])
    func extendedRejections(_ hex: String, _ error: WireError) {
        #expect(throws: error) { try HCI.Event(bytes: leMetaEvent(hex)) }
    }
}

extension String {
    /// A u16 as two little-endian hex bytes.
    fileprivate init(format16 value: UInt16) {
        self = Hex.encode([UInt8(truncatingIfNeeded: value), UInt8(value >> 8)], separator: " ")
    }
}
