import Bluetooth
import Wire

extension HCI {
    /// HCI_LE_Meta_Event (Core v5.4 Vol 4 Part E §7.7.65): subevent code, then its parameters.
    public enum LEMetaEvent: Sendable, Equatable {
        case connectionComplete(LEConnectionComplete)
        case advertisingReports([AdvertisingReport])
        case connectionUpdateComplete(LEConnectionUpdateComplete)
        case readRemoteFeaturesComplete(status: Status, handle: UInt16, features: UInt64)
        case longTermKeyRequest(handle: UInt16, random: UInt64, ediv: UInt16)
        case remoteConnectionParameterRequest(handle: UInt16, parameters: ConnectionParameters)
        case dataLengthChange(handle: UInt16, maxTxOctets: UInt16, maxRxOctets: UInt16)
        case phyUpdateComplete(status: Status, handle: UInt16)
        case unknown(subevent: UInt8, parameters: [UInt8])

        public enum Subevent {
            public static let connectionComplete: UInt8 = 0x01
            public static let advertisingReport: UInt8 = 0x02
            public static let connectionUpdateComplete: UInt8 = 0x03
            public static let readRemoteFeaturesComplete: UInt8 = 0x04
            public static let longTermKeyRequest: UInt8 = 0x05
            public static let remoteConnectionParameterRequest: UInt8 = 0x06
            public static let dataLengthChange: UInt8 = 0x07
            public static let enhancedConnectionComplete: UInt8 = 0x0A
            public static let phyUpdateComplete: UInt8 = 0x0C
            public static let extendedAdvertisingReport: UInt8 = 0x0D
        }

        init(from r: inout ByteReader) throws(WireError) {
            let subevent = try r.readUInt8("LE subevent code")
            switch subevent {
            case Subevent.connectionComplete:
                self = .connectionComplete(try LEConnectionComplete(from: &r, enhanced: false))
            case Subevent.enhancedConnectionComplete:
                self = .connectionComplete(try LEConnectionComplete(from: &r, enhanced: true))
            case Subevent.advertisingReport:
                self = .advertisingReports(try AdvertisingReport.decodeLegacy(from: &r))
            case Subevent.extendedAdvertisingReport:
                self = .advertisingReports(try AdvertisingReport.decodeExtended(from: &r))
            case Subevent.connectionUpdateComplete:
                let status = Status(try r.readUInt8("status"))
                let handle = try r.readUInt16("handle") & 0x0FFF
                let interval = try r.readUInt16("Connection_Interval")
                let latency = try r.readUInt16("Peripheral_Latency")
                let timeout = try r.readUInt16("Supervision_Timeout")
                self = .connectionUpdateComplete(LEConnectionUpdateComplete(status: status, handle: handle, interval: interval, latency: latency, supervisionTimeout: timeout))
            case Subevent.readRemoteFeaturesComplete:
                let status = Status(try r.readUInt8("status"))
                let handle = try r.readUInt16("handle") & 0x0FFF
                self = .readRemoteFeaturesComplete(status: status, handle: handle, features: try r.readUInt64("LE_Features"))
            case Subevent.longTermKeyRequest:
                let handle = try r.readUInt16("handle") & 0x0FFF
                let random = try r.readUInt64("Random_Number")
                self = .longTermKeyRequest(handle: handle, random: random, ediv: try r.readUInt16("Encrypted_Diversifier"))
            case Subevent.remoteConnectionParameterRequest:
                let handle = try r.readUInt16("handle") & 0x0FFF
                let min = try r.readUInt16("Interval_Min")
                let max = try r.readUInt16("Interval_Max")
                let latency = try r.readUInt16("Max_Latency")
                let timeout = try r.readUInt16("Timeout")
                self = .remoteConnectionParameterRequest(handle: handle, parameters: ConnectionParameters(intervalMin: min, intervalMax: max, latency: latency, supervisionTimeout: timeout))
            case Subevent.dataLengthChange:
                let handle = try r.readUInt16("handle") & 0x0FFF
                let maxTx = try r.readUInt16("Max_TX_Octets")
                _ = try r.readUInt16("Max_TX_Time")
                let maxRx = try r.readUInt16("Max_RX_Octets")
                _ = try r.readUInt16("Max_RX_Time")
                self = .dataLengthChange(handle: handle, maxTxOctets: maxTx, maxRxOctets: maxRx)
            case Subevent.phyUpdateComplete:
                let status = Status(try r.readUInt8("status"))
                let handle = try r.readUInt16("handle") & 0x0FFF
                try r.skip(2, "PHYs")
                self = .phyUpdateComplete(status: status, handle: handle)
            default:
                self = .unknown(subevent: subevent, parameters: r.readRemaining())
            }
        }
    }

    /// Our role in a connection (§7.7.65.1).
    public enum Role: UInt8, Sendable {
        case central = 0x00
        case peripheral = 0x01
    }

    /// HCI_LE_Connection_Complete (§7.7.65.1) and HCI_LE_Enhanced_Connection_Complete [v1]
    /// (§7.7.65.10), folded into one value: the enhanced form only adds the two RPAs.
    public struct LEConnectionComplete: Sendable, Equatable {
        public var status: Status
        public var handle: UInt16
        public var role: Role
        public var peer: DeviceAddress
        /// Connection interval in 1.25 ms units.
        public var interval: UInt16
        public var latency: UInt16
        /// Supervision timeout in 10 ms units.
        public var supervisionTimeout: UInt16

        public init(status: Status, handle: UInt16, role: Role, peer: DeviceAddress, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
            self.status = status
            self.handle = handle
            self.role = role
            self.peer = peer
            self.interval = interval
            self.latency = latency
            self.supervisionTimeout = supervisionTimeout
        }

        init(from r: inout ByteReader, enhanced: Bool) throws(WireError) {
            status = Status(try r.readUInt8("status"))
            handle = try r.readUInt16("Connection_Handle") & 0x0FFF
            let roleByte = try r.readUInt8("Role")
            role = Role(rawValue: roleByte & 1) ?? .central
            let type = try r.readUInt8("Peer_Address_Type")
            guard let addressType = AddressType(rawValue: type) else {
                throw .invalidValue(field: "Peer_Address_Type", value: Int(type))
            }
            peer = DeviceAddress(try r.readAddress("Peer_Address"), type: addressType)
            if enhanced { try r.skip(12, "Local/Peer_Resolvable_Private_Address") }
            interval = try r.readUInt16("Connection_Interval")
            latency = try r.readUInt16("Peripheral_Latency")
            supervisionTimeout = try r.readUInt16("Supervision_Timeout")
            _ = try r.readUInt8("Central_Clock_Accuracy")
        }

        /// Encodes the legacy (non-enhanced) subevent, for the simulated controller.
        public var eventBytes: [UInt8] {
            var w = ByteWriter()
            w.write(Event.Code.leMeta); w.write(UInt8(19)); w.write(LEMetaEvent.Subevent.connectionComplete)
            w.write(status.rawValue); w.write(handle); w.write(role.rawValue); w.write(peer.type.rawValue)
            w.write(peer.address); w.write(interval); w.write(latency); w.write(supervisionTimeout); w.write(UInt8(0))
            return w.bytes
        }
    }

    /// HCI_LE_Connection_Update_Complete (§7.7.65.3).
    public struct LEConnectionUpdateComplete: Sendable, Equatable {
        public var status: Status
        public var handle: UInt16
        public var interval: UInt16
        public var latency: UInt16
        public var supervisionTimeout: UInt16
        public init(status: Status, handle: UInt16, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
            self.status = status
            self.handle = handle
            self.interval = interval
            self.latency = latency
            self.supervisionTimeout = supervisionTimeout
        }
    }
}
