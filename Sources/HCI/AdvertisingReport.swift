import Bluetooth
import Wire

extension HCI {
    /// One advertising report, legacy (§7.7.65.2) or extended (§7.7.65.13), normalised.
    ///
    /// `data` is a slice of the event buffer, not a copy: decoding a report allocates nothing
    /// beyond the report array, which matters when a busy radio delivers thousands a second.
    public struct AdvertisingReport: Sendable, Equatable {
        /// What kind of PDU carried the data (legacy Event_Type values; extended reports map
        /// their Event_Type bits onto these).
        public enum Kind: UInt8, Sendable {
            case connectableUndirected = 0x00   // ADV_IND
            case connectableDirected = 0x01     // ADV_DIRECT_IND
            case scannableUndirected = 0x02     // ADV_SCAN_IND
            case nonConnectable = 0x03          // ADV_NONCONN_IND
            case scanResponse = 0x04            // SCAN_RSP
        }

        public var kind: Kind
        public var address: DeviceAddress
        /// Received signal strength in dBm; nil when the controller says 127 ("not available").
        public var rssi: Int8?
        public var data: ArraySlice<UInt8>
        public var isExtended: Bool

        public init(kind: Kind, address: DeviceAddress, rssi: Int8?, data: ArraySlice<UInt8>, isExtended: Bool = false) {
            self.kind = kind
            self.address = address
            self.rssi = rssi
            self.data = data
            self.isExtended = isExtended
        }

        public var isConnectable: Bool { kind == .connectableUndirected || kind == .connectableDirected }

        /// Legacy reports: Num_Reports, then each report's fields back to back, report-major, as
        /// BlueZ parses them (monitor/packet.c). Controllers nearly always send one per event.
        static func decodeLegacy(from r: inout ByteReader) throws(WireError) -> [AdvertisingReport] {
            let count = Int(try r.readUInt8("Num_Reports"))
            guard count >= 1 else { throw .invalidValue(field: "Num_Reports", value: 0) }
            var reports: [AdvertisingReport] = []
            reports.reserveCapacity(count)
            for _ in 0..<count {
                let type = try r.readUInt8("Event_Type")
                guard let kind = Kind(rawValue: type) else { throw .invalidValue(field: "Event_Type", value: Int(type)) }
                let addressType = try r.readUInt8("Address_Type")
                guard let at = AddressType(rawValue: addressType) else {
                    throw .invalidValue(field: "Address_Type", value: Int(addressType))
                }
                // readUInt48, not readAddress: the generic Address(wireBytes:) is a measurable
                // share of decoding a report (see the commit that made this change).
                let address = Address(value: try r.readUInt48("Address"))
                let length = Int(try r.readUInt8("Data_Length"))
                guard length <= 31 else { throw .invalidValue(field: "Data_Length", value: length) }
                let range = try r.readRange(length, "Data")
                let rssi = try r.readInt8("RSSI")
                reports.append(AdvertisingReport(kind: kind, address: DeviceAddress(address, type: at), rssi: rssi == 127 ? nil : rssi, data: r.bytes[range]))
            }
            return reports
        }

        /// Extended reports (§7.7.65.13): Event_Type is a 16-bit field of property bits.
        /// Bumble sends these even after the legacy LE Set Scan Enable (docs/bumble-peer.md
        /// §Controller quirks).
        static func decodeExtended(from r: inout ByteReader) throws(WireError) -> [AdvertisingReport] {
            let count = Int(try r.readUInt8("Num_Reports"))
            guard count >= 1 else { throw .invalidValue(field: "Num_Reports", value: 0) }
            var reports: [AdvertisingReport] = []
            reports.reserveCapacity(count)
            for _ in 0..<count {
                let props = try r.readUInt16("Event_Type")
                let addressType = try r.readUInt8("Address_Type")
                let address = Address(value: try r.readUInt48("Address"))
                try r.skip(3, "Primary_PHY/Secondary_PHY/Advertising_SID")
                _ = try r.readInt8("TX_Power")
                let rssi = try r.readInt8("RSSI")
                try r.skip(2, "Periodic_Advertising_Interval")
                try r.skip(7, "Direct_Address_Type/Direct_Address")
                let length = Int(try r.readUInt8("Data_Length"))
                let range = try r.readRange(length, "Data")
                // Bits: 0 connectable, 1 scannable, 2 directed, 3 scan response, 4 legacy PDU.
                let kind: Kind =
                    props & 0b1000 != 0 ? .scanResponse :
                    props & 0b0100 != 0 ? .connectableDirected :
                    props & 0b0001 != 0 ? .connectableUndirected :
                    props & 0b0010 != 0 ? .scannableUndirected : .nonConnectable
                // 0xFF = anonymous advertiser: no address; report it as a random all-zero address.
                guard addressType == 0xFF || AddressType(rawValue: addressType) != nil else {
                    throw .invalidValue(field: "Address_Type", value: Int(addressType))
                }
                let type = AddressType(rawValue: addressType) ?? .random
                reports.append(AdvertisingReport(kind: kind, address: DeviceAddress(addressType == 0xFF ? Address(value: 0) : address, type: type), rssi: rssi == 127 ? nil : rssi, data: r.bytes[range], isExtended: true))
            }
            return reports
        }

        /// Encodes this report as a legacy LE Advertising Report event, for the simulator and
        /// benchmark fixtures.
        public var legacyEventBytes: [UInt8] {
            var w = ByteWriter(capacity: 14 + data.count)
            w.write(Event.Code.leMeta)
            w.write(UInt8(12 + data.count))
            w.write(LEMetaEvent.Subevent.advertisingReport)
            w.write(UInt8(1))
            w.write(kind.rawValue)
            w.write(address.type.rawValue)
            w.write(address.address)
            w.write(UInt8(data.count))
            w.write(contentsOf: data)
            w.write(rssi ?? 127)
            return w.bytes
        }
    }
}
