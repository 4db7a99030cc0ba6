import Bluetooth
import Wire

// Link control, controller & baseband and informational commands
// (Core v5.4 Vol 4 Part E §7.1, §7.3, §7.4).

extension HCI {
    /// HCI_Disconnect (§7.1.6), OGF 0x01 OCF 0x0006. Answered by Command Status, then Disconnection Complete.
    public struct Disconnect: HCICommand, Equatable {
        public static let opcode = Opcode(ogf: 0x01, ocf: 0x0006)
        public var handle: UInt16
        public var reason: Status
        public init(handle: UInt16, reason: Status = .remoteUserTerminated) {
            self.handle = handle
            self.reason = reason
        }
        public func encodeParameters(into w: inout ByteWriter) {
            w.write(handle)
            w.write(reason.rawValue)
        }
        public init(parameters r: inout ByteReader) throws(WireError) {
            handle = try r.readUInt16("handle") & 0x0FFF
            reason = Status(try r.readUInt8("reason"))
        }
    }

    /// HCI_Read_Remote_Version_Information (§7.1.23). Bumble never answers it: a timeout must cover it.
    public struct ReadRemoteVersionInformation: HCICommand, Equatable {
        public static let opcode = Opcode(ogf: 0x01, ocf: 0x001D)
        public var handle: UInt16
        public init(handle: UInt16) { self.handle = handle }
        public func encodeParameters(into w: inout ByteWriter) { w.write(handle) }
        public init(parameters r: inout ByteReader) throws(WireError) { handle = try r.readUInt16("handle") }
    }

    /// HCI_Set_Event_Mask (§7.3.1), OGF 0x03 OCF 0x0001.
    public struct SetEventMask: HCICommand, Equatable {
        public static let opcode = Opcode(ogf: 0x03, ocf: 0x0001)
        /// Bits (BlueZ monitor/packet.c `events_table`): 4 Disconnection Complete, 7 Encryption
        /// Change, 11 Read Remote Version Complete, 15 Hardware Error, 47 Encryption Key Refresh
        /// Complete, 61 LE Meta. Command Complete/Status and Number Of Completed Packets cannot be masked.
        public static let vigilDefault: UInt64 = 1 << 4 | 1 << 7 | 1 << 11 | 1 << 15 | 1 << 47 | 1 << 61
        public var mask: UInt64
        public init(mask: UInt64 = SetEventMask.vigilDefault) { self.mask = mask }
        public func encodeParameters(into w: inout ByteWriter) { w.write(mask) }
        public init(parameters r: inout ByteReader) throws(WireError) { mask = try r.readUInt64("event mask") }
    }

    /// HCI_Reset (§7.3.2), OGF 0x03 OCF 0x0003.
    public struct Reset: HCIParameterlessCommand, Equatable {
        public static let opcode = Opcode(ogf: 0x03, ocf: 0x0003)
        public init() {}
    }

    /// HCI_Write_LE_Host_Support (§7.3.79): needed on dual-mode controllers before LE commands.
    public struct WriteLEHostSupport: HCICommand, Equatable {
        public static let opcode = Opcode(ogf: 0x03, ocf: 0x006D)
        public var leSupported: Bool
        public init(leSupported: Bool = true) { self.leSupported = leSupported }
        public func encodeParameters(into w: inout ByteWriter) {
            w.write(UInt8(leSupported ? 1 : 0))
            w.write(UInt8(0))  // Simultaneous_LE_Host: shall be 0 (deprecated, §7.3.79)
        }
        public init(parameters r: inout ByteReader) throws(WireError) {
            leSupported = try r.readUInt8("LE_Supported_Host") != 0
            _ = try r.readUInt8("Unused")
        }
    }

    /// HCI_Read_Local_Version_Information (§7.4.1).
    public struct ReadLocalVersionInformation: HCIParameterlessCommand, Equatable {
        public static let opcode = Opcode(ogf: 0x04, ocf: 0x0001)
        public init() {}

        public struct Return: Sendable, Equatable {
            public var hciVersion: UInt8
            public var hciSubversion: UInt16
            public var lmpVersion: UInt8
            public var manufacturer: UInt16
            public var lmpSubversion: UInt16
            public init(hciVersion: UInt8, hciSubversion: UInt16, lmpVersion: UInt8, manufacturer: UInt16, lmpSubversion: UInt16) {
                self.hciVersion = hciVersion
                self.hciSubversion = hciSubversion
                self.lmpVersion = lmpVersion
                self.manufacturer = manufacturer
                self.lmpSubversion = lmpSubversion
            }
            public init(returnParameters p: [UInt8]) throws(WireError) {
                var r = ByteReader(p)
                _ = try r.readUInt8("status")
                hciVersion = try r.readUInt8("HCI_Version")
                hciSubversion = try r.readUInt16("HCI_Subversion")
                lmpVersion = try r.readUInt8("LMP_Version")
                manufacturer = try r.readUInt16("Company_Identifier")
                lmpSubversion = try r.readUInt16("LMP_Subversion")
            }
            public var returnParameters: [UInt8] {
                var w = ByteWriter()
                w.write(UInt8(0)); w.write(hciVersion); w.write(hciSubversion); w.write(lmpVersion)
                w.write(manufacturer); w.write(lmpSubversion)
                return w.bytes
            }
        }
    }

    /// HCI_Read_Local_Supported_Features (§7.4.3).
    public struct ReadLocalSupportedFeatures: HCIParameterlessCommand, Equatable {
        public static let opcode = Opcode(ogf: 0x04, ocf: 0x0003)
        public init() {}
    }

    /// HCI_Read_Buffer_Size (§7.4.5): the fallback when LE_ACL_Data_Packet_Length is 0 (§7.8.2).
    public struct ReadBufferSize: HCIParameterlessCommand, Equatable {
        public static let opcode = Opcode(ogf: 0x04, ocf: 0x0005)
        public init() {}

        public struct Return: Sendable, Equatable {
            public var aclDataPacketLength: UInt16
            public var totalNumACLDataPackets: UInt16
            public init(aclDataPacketLength: UInt16, totalNumACLDataPackets: UInt16) {
                self.aclDataPacketLength = aclDataPacketLength
                self.totalNumACLDataPackets = totalNumACLDataPackets
            }
            public init(returnParameters p: [UInt8]) throws(WireError) {
                var r = ByteReader(p)
                _ = try r.readUInt8("status")
                aclDataPacketLength = try r.readUInt16("ACL_Data_Packet_Length")
                _ = try r.readUInt8("Synchronous_Data_Packet_Length")
                totalNumACLDataPackets = try r.readUInt16("Total_Num_ACL_Data_Packets")
            }
        }
    }

    /// HCI_Read_BD_ADDR (§7.4.6).
    public struct ReadBDADDR: HCIParameterlessCommand, Equatable {
        public static let opcode = Opcode(ogf: 0x04, ocf: 0x0009)
        public init() {}

        public struct Return: Sendable, Equatable {
            public var address: Address
            public init(address: Address) { self.address = address }
            public init(returnParameters p: [UInt8]) throws(WireError) {
                var r = ByteReader(p)
                _ = try r.readUInt8("status")
                address = try r.readAddress("BD_ADDR")
            }
            public var returnParameters: [UInt8] { [0] + address.wireBytes }
        }
    }
}
