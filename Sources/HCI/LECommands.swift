import Bluetooth
import Wire

// LE controller commands (Core v5.4 Vol 4 Part E §7.8). OGF 0x08.

extension HCI {
    /// HCI_LE_Set_Event_Mask (§7.8.1).
    public struct LESetEventMask: HCICommand, Equatable {
        public static let opcode = Opcode(ogf: 0x08, ocf: 0x0001)
        /// Bits (§7.8.1; BlueZ `events_le_table`): 0 Connection Complete, 1 Advertising Report,
        /// 2 Connection Update Complete, 3 Read Remote Features Complete, 4 LTK Request,
        /// 5 Remote Connection Parameter Request, 6 Data Length Change, 9 Enhanced Connection
        /// Complete, 11 PHY Update Complete, 12 Extended Advertising Report.
        public static let vigilDefault: UInt64 = 1 << 0 | 1 << 1 | 1 << 2 | 1 << 3 | 1 << 4 | 1 << 5 | 1 << 6 | 1 << 11 | 1 << 12
        public var mask: UInt64
        public init(mask: UInt64 = LESetEventMask.vigilDefault) { self.mask = mask }
        public func encodeParameters(into w: inout ByteWriter) { w.write(mask) }
        public init(parameters r: inout ByteReader) throws(WireError) { mask = try r.readUInt64("LE event mask") }
    }

    /// HCI_LE_Read_Buffer_Size [v1] (§7.8.2).
    public struct LEReadBufferSize: HCIParameterlessCommand, Equatable {
        public static let opcode = Opcode(ogf: 0x08, ocf: 0x0002)
        public init() {}

        public struct Return: Sendable, Equatable {
            /// 0 means the controller shares the BR/EDR buffers: use HCI_Read_Buffer_Size.
            public var leACLDataPacketLength: UInt16
            public var totalNumLEACLDataPackets: UInt8
            public init(leACLDataPacketLength: UInt16, totalNumLEACLDataPackets: UInt8) {
                self.leACLDataPacketLength = leACLDataPacketLength
                self.totalNumLEACLDataPackets = totalNumLEACLDataPackets
            }
            public init(returnParameters p: [UInt8]) throws(WireError) {
                var r = ByteReader(p)
                _ = try r.readUInt8("status")
                leACLDataPacketLength = try r.readUInt16("LE_ACL_Data_Packet_Length")
                totalNumLEACLDataPackets = try r.readUInt8("Total_Num_LE_ACL_Data_Packets")
            }
            public var returnParameters: [UInt8] {
                var w = ByteWriter()
                w.write(UInt8(0)); w.write(leACLDataPacketLength); w.write(totalNumLEACLDataPackets)
                return w.bytes
            }
        }
    }

    /// HCI_LE_Read_Local_Supported_Features (§7.8.3). Feature bits per Vol 6 Part B §4.6:
    /// bit 0 LE Encryption, bit 12 LE Extended Advertising.
    public struct LEReadLocalSupportedFeatures: HCIParameterlessCommand, Equatable {
        public static let opcode = Opcode(ogf: 0x08, ocf: 0x0003)
        public init() {}

        public struct Return: Sendable, Equatable {
            public var features: UInt64
            public init(features: UInt64) { self.features = features }
            public init(returnParameters p: [UInt8]) throws(WireError) {
                var r = ByteReader(p)
                _ = try r.readUInt8("status")
                features = try r.readUInt64("LE_Features")
            }
            public var supportsEncryption: Bool { features & 1 != 0 }
            public var supportsExtendedAdvertising: Bool { features & (1 << 12) != 0 }
        }
    }

    /// HCI_LE_Set_Random_Address (§7.8.4).
    public struct LESetRandomAddress: HCICommand, Equatable {
        public static let opcode = Opcode(ogf: 0x08, ocf: 0x0005)
        public var address: Address
        public init(address: Address) { self.address = address }
        public func encodeParameters(into w: inout ByteWriter) { w.write(address) }
        public init(parameters r: inout ByteReader) throws(WireError) { address = try r.readAddress("Random_Address") }
    }

    /// Own-address type in LE commands (§7.8.5 et al.).
    public enum OwnAddressType: UInt8, Sendable {
        case `public` = 0x00
        case random = 0x01
    }

    /// HCI_LE_Set_Scan_Parameters (§7.8.10). Interval and window in 0.625 ms units, 0x0004–0x4000.
    public struct LESetScanParameters: HCICommand, Equatable {
        public static let opcode = Opcode(ogf: 0x08, ocf: 0x000B)
        public var active: Bool
        public var interval: UInt16
        public var window: UInt16
        public var ownAddressType: OwnAddressType
        public var filterPolicy: UInt8

        public init(active: Bool, interval: UInt16 = 0x0060, window: UInt16 = 0x0030, ownAddressType: OwnAddressType = .random, filterPolicy: UInt8 = 0) {
            self.active = active
            self.interval = interval
            self.window = window
            self.ownAddressType = ownAddressType
            self.filterPolicy = filterPolicy
        }
        public func encodeParameters(into w: inout ByteWriter) {
            w.write(UInt8(active ? 1 : 0)); w.write(interval); w.write(window)
            w.write(ownAddressType.rawValue); w.write(filterPolicy)
        }
        public init(parameters r: inout ByteReader) throws(WireError) {
            active = try r.readUInt8("LE_Scan_Type") == 1
            interval = try r.readUInt16("LE_Scan_Interval")
            window = try r.readUInt16("LE_Scan_Window")
            let own = try r.readUInt8("Own_Address_Type")
            ownAddressType = OwnAddressType(rawValue: own & 1) ?? .public
            filterPolicy = try r.readUInt8("Scanning_Filter_Policy")
        }
    }

    /// HCI_LE_Set_Scan_Enable (§7.8.11).
    public struct LESetScanEnable: HCICommand, Equatable {
        public static let opcode = Opcode(ogf: 0x08, ocf: 0x000C)
        public var enable: Bool
        public var filterDuplicates: Bool
        public init(enable: Bool, filterDuplicates: Bool = false) {
            self.enable = enable
            self.filterDuplicates = filterDuplicates
        }
        public func encodeParameters(into w: inout ByteWriter) {
            w.write(UInt8(enable ? 1 : 0)); w.write(UInt8(filterDuplicates ? 1 : 0))
        }
        public init(parameters r: inout ByteReader) throws(WireError) {
            enable = try r.readUInt8("LE_Scan_Enable") != 0
            filterDuplicates = try r.readUInt8("Filter_Duplicates") != 0
        }
    }

    /// Connection parameters shared by create-connection and update (§7.8.12, §7.8.18).
    /// Intervals in 1.25 ms units (0x0006–0x0C80), supervision timeout in 10 ms units.
    public struct ConnectionParameters: Sendable, Equatable {
        public var intervalMin: UInt16
        public var intervalMax: UInt16
        public var latency: UInt16
        public var supervisionTimeout: UInt16
        public var minCELength: UInt16
        public var maxCELength: UInt16

        public init(intervalMin: UInt16 = 24, intervalMax: UInt16 = 40, latency: UInt16 = 0, supervisionTimeout: UInt16 = 400, minCELength: UInt16 = 0, maxCELength: UInt16 = 0) {
            self.intervalMin = intervalMin
            self.intervalMax = intervalMax
            self.latency = latency
            self.supervisionTimeout = supervisionTimeout
            self.minCELength = minCELength
            self.maxCELength = maxCELength
        }

        /// The supervision timeout as a duration.
        public var supervisionDuration: Duration { .milliseconds(Int(supervisionTimeout) * 10) }

        /// Whether a peripheral's request is within the spec's ranges (Vol 3 Part A §4.20 refers
        /// to Vol 6 Part B §4.5.1): interval 7.5 ms–4 s, latency < 500, timeout 100 ms–32 s and
        /// larger than (1 + latency) × interval × 2.
        public var isValid: Bool {
            guard intervalMin >= 6, intervalMax <= 0x0C80, intervalMin <= intervalMax,
                  latency <= 499, supervisionTimeout >= 10, supervisionTimeout <= 0x0C80 else { return false }
            // timeout (10 ms units) × 10 > (1 + latency) × intervalMax (1.25 ms units) × 1.25 × 2
            return Int(supervisionTimeout) * 40 > (1 + Int(latency)) * Int(intervalMax) * 10
        }

        func encode(into w: inout ByteWriter) {
            w.write(intervalMin); w.write(intervalMax); w.write(latency)
            w.write(supervisionTimeout); w.write(minCELength); w.write(maxCELength)
        }

        init(from r: inout ByteReader) throws(WireError) {
            intervalMin = try r.readUInt16("Connection_Interval_Min")
            intervalMax = try r.readUInt16("Connection_Interval_Max")
            latency = try r.readUInt16("Max_Latency")
            supervisionTimeout = try r.readUInt16("Supervision_Timeout")
            minCELength = try r.readUInt16("Min_CE_Length")
            maxCELength = try r.readUInt16("Max_CE_Length")
        }
    }

    /// HCI_LE_Create_Connection (§7.8.12): 25 parameter bytes.
    public struct LECreateConnection: HCICommand, Equatable {
        public static let opcode = Opcode(ogf: 0x08, ocf: 0x000D)
        public var scanInterval: UInt16
        public var scanWindow: UInt16
        public var useFilterAcceptList: Bool
        public var peer: DeviceAddress
        public var ownAddressType: OwnAddressType
        public var parameters: ConnectionParameters

        public init(peer: DeviceAddress, ownAddressType: OwnAddressType = .random, parameters: ConnectionParameters = .init(), scanInterval: UInt16 = 0x0060, scanWindow: UInt16 = 0x0060) {
            self.scanInterval = scanInterval
            self.scanWindow = scanWindow
            self.useFilterAcceptList = false
            self.peer = peer
            self.ownAddressType = ownAddressType
            self.parameters = parameters
        }
        public func encodeParameters(into w: inout ByteWriter) {
            w.write(scanInterval); w.write(scanWindow); w.write(UInt8(useFilterAcceptList ? 1 : 0))
            // Peer_Address_Type takes only public/random (0/1); resolved identity types fold back.
            w.write(UInt8(peer.type.isRandom ? 1 : 0)); w.write(peer.address)
            w.write(ownAddressType.rawValue)
            parameters.encode(into: &w)
        }
        public init(parameters r: inout ByteReader) throws(WireError) {
            scanInterval = try r.readUInt16("LE_Scan_Interval")
            scanWindow = try r.readUInt16("LE_Scan_Window")
            useFilterAcceptList = try r.readUInt8("Initiator_Filter_Policy") != 0
            let type = try r.readUInt8("Peer_Address_Type")
            let address = try r.readAddress("Peer_Address")
            peer = DeviceAddress(address, type: type & 1 == 1 ? .random : .public)
            ownAddressType = OwnAddressType(rawValue: try r.readUInt8("Own_Address_Type") & 1) ?? .public
            parameters = try ConnectionParameters(from: &r)
        }
    }

    /// HCI_LE_Create_Connection_Cancel (§7.8.13).
    public struct LECreateConnectionCancel: HCIParameterlessCommand, Equatable {
        public static let opcode = Opcode(ogf: 0x08, ocf: 0x000E)
        public init() {}
    }

    /// HCI_LE_Connection_Update (§7.8.18).
    public struct LEConnectionUpdate: HCICommand, Equatable {
        public static let opcode = Opcode(ogf: 0x08, ocf: 0x0013)
        public var handle: UInt16
        public var parameters: ConnectionParameters
        public init(handle: UInt16, parameters: ConnectionParameters) {
            self.handle = handle
            self.parameters = parameters
        }
        public func encodeParameters(into w: inout ByteWriter) {
            w.write(handle)
            parameters.encode(into: &w)
        }
        public init(parameters r: inout ByteReader) throws(WireError) {
            handle = try r.readUInt16("Connection_Handle")
            parameters = try ConnectionParameters(from: &r)
        }
    }

    /// HCI_LE_Rand (§7.8.23).
    public struct LERand: HCIParameterlessCommand, Equatable {
        public static let opcode = Opcode(ogf: 0x08, ocf: 0x0018)
        public init() {}
    }

    /// HCI_LE_Enable_Encryption (§7.8.24): 28 parameter bytes. LTK in wire order (LSB first).
    public struct LEEnableEncryption: HCICommand, Equatable {
        public static let opcode = Opcode(ogf: 0x08, ocf: 0x0019)
        public var handle: UInt16
        public var random: UInt64
        public var ediv: UInt16
        public var longTermKey: [UInt8]
        public init(handle: UInt16, random: UInt64, ediv: UInt16, longTermKey: [UInt8]) {
            precondition(longTermKey.count == 16)
            self.handle = handle
            self.random = random
            self.ediv = ediv
            self.longTermKey = longTermKey
        }
        public func encodeParameters(into w: inout ByteWriter) {
            w.write(handle); w.write(random); w.write(ediv); w.write(contentsOf: longTermKey)
        }
        public init(parameters r: inout ByteReader) throws(WireError) {
            handle = try r.readUInt16("Connection_Handle")
            random = try r.readUInt64("Random_Number")
            ediv = try r.readUInt16("Encrypted_Diversifier")
            longTermKey = try r.readBytes(16, "Long_Term_Key")
        }
    }

    /// HCI_LE_Long_Term_Key_Request_Reply (§7.8.25), peripheral role (our simulator).
    public struct LELongTermKeyRequestReply: HCICommand, Equatable {
        public static let opcode = Opcode(ogf: 0x08, ocf: 0x001A)
        public var handle: UInt16
        public var longTermKey: [UInt8]
        public init(handle: UInt16, longTermKey: [UInt8]) {
            self.handle = handle
            self.longTermKey = longTermKey
        }
        public func encodeParameters(into w: inout ByteWriter) { w.write(handle); w.write(contentsOf: longTermKey) }
        public init(parameters r: inout ByteReader) throws(WireError) {
            handle = try r.readUInt16("Connection_Handle")
            longTermKey = try r.readBytes(16, "Long_Term_Key")
        }
    }

    /// HCI_LE_Long_Term_Key_Request_Negative_Reply (§7.8.26).
    public struct LELongTermKeyRequestNegativeReply: HCICommand, Equatable {
        public static let opcode = Opcode(ogf: 0x08, ocf: 0x001B)
        public var handle: UInt16
        public init(handle: UInt16) { self.handle = handle }
        public func encodeParameters(into w: inout ByteWriter) { w.write(handle) }
        public init(parameters r: inout ByteReader) throws(WireError) { handle = try r.readUInt16("Connection_Handle") }
    }

    /// HCI_LE_Set_Advertising_Enable (§7.8.9), for the simulated peripherals.
    public struct LESetAdvertisingEnable: HCICommand, Equatable {
        public static let opcode = Opcode(ogf: 0x08, ocf: 0x000A)
        public var enable: Bool
        public init(enable: Bool) { self.enable = enable }
        public func encodeParameters(into w: inout ByteWriter) { w.write(UInt8(enable ? 1 : 0)) }
        public init(parameters r: inout ByteReader) throws(WireError) { enable = try r.readUInt8("Advertising_Enable") != 0 }
    }
}

extension HCI {
    /// Names for log lines and btsnoop dumps.
    static let commandNames: [UInt16: String] = [
        Disconnect.opcode.rawValue: "Disconnect",
        ReadRemoteVersionInformation.opcode.rawValue: "Read Remote Version Information",
        SetEventMask.opcode.rawValue: "Set Event Mask",
        Reset.opcode.rawValue: "Reset",
        WriteLEHostSupport.opcode.rawValue: "Write LE Host Support",
        ReadLocalVersionInformation.opcode.rawValue: "Read Local Version Information",
        ReadLocalSupportedFeatures.opcode.rawValue: "Read Local Supported Features",
        ReadBufferSize.opcode.rawValue: "Read Buffer Size",
        ReadBDADDR.opcode.rawValue: "Read BD_ADDR",
        LESetEventMask.opcode.rawValue: "LE Set Event Mask",
        LEReadBufferSize.opcode.rawValue: "LE Read Buffer Size",
        LEReadLocalSupportedFeatures.opcode.rawValue: "LE Read Local Supported Features",
        LESetRandomAddress.opcode.rawValue: "LE Set Random Address",
        LESetAdvertisingEnable.opcode.rawValue: "LE Set Advertising Enable",
        LESetScanParameters.opcode.rawValue: "LE Set Scan Parameters",
        LESetScanEnable.opcode.rawValue: "LE Set Scan Enable",
        LECreateConnection.opcode.rawValue: "LE Create Connection",
        LECreateConnectionCancel.opcode.rawValue: "LE Create Connection Cancel",
        LEConnectionUpdate.opcode.rawValue: "LE Connection Update",
        LERand.opcode.rawValue: "LE Rand",
        LEEnableEncryption.opcode.rawValue: "LE Enable Encryption",
        LELongTermKeyRequestReply.opcode.rawValue: "LE Long Term Key Request Reply",
        LELongTermKeyRequestNegativeReply.opcode.rawValue: "LE Long Term Key Request Negative Reply",
    ]
}
