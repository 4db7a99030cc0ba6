import Testing
import Wire
@testable import HCI

/// The H4 indicator and opcode packing (Core v5.4 Vol 4 Part A §2, Part E §5.4.1;
/// docs/protocols/btsnoop-h4.md §H4; docs/protocols/hci.md §Packet headers, §Commands, BlueZ
/// `cmd_opcode_pack`).
struct HCITests {
    @Test func packetIndicators() {
        #expect(HCI.PacketType.allCases.map(\.rawValue) == [0x01, 0x02, 0x03, 0x04, 0x05])
        #expect(HCI.PacketType(rawValue: 0x00) == nil)
        #expect(HCI.PacketType(rawValue: 0x06) == nil)
    }

    @Test(arguments: [
        (UInt8(0x01), UInt16(0x0006), UInt16(0x0406)),  // Disconnect
        (0x03, 0x0003, 0x0C03),                          // Reset
        (0x03, 0x006D, 0x0C6D),                          // Write LE Host Support
        (0x04, 0x0009, 0x1009),                          // Read BD_ADDR
        (0x08, 0x000D, 0x200D),                          // LE Create Connection
        (0x08, 0x0019, 0x2019),                          // LE Enable Encryption
        (0x3F, 0x03FF, 0xFFFF),                          // the top of the vendor range
        (0x00, 0x0000, 0x0000),                          // NOP
    ])
    func opcodePacking(_ ogf: UInt8, _ ocf: UInt16, _ raw: UInt16) {
        let opcode = HCI.Opcode(ogf: ogf, ocf: ocf)
        #expect(opcode.rawValue == raw)
        #expect(opcode.ogf == ogf)
        #expect(opcode.ocf == ocf)
        #expect(HCI.Opcode(rawValue: raw) == opcode)
    }

    @Test func ocfIsMaskedToTenBits() {
        let opcode = HCI.Opcode(ogf: 0x08, ocf: 0x040D)
        #expect(opcode.rawValue == 0x200D)
        #expect(opcode.ocf == 0x000D)
    }

    @Test func opcodeDescriptionNamesKnownCommands() {
        #expect(HCI.Reset.opcode.description == "Reset (0x0c03)")
        #expect(HCI.LECreateConnection.opcode.description == "LE Create Connection (0x200d)")
        #expect(HCI.Opcode(rawValue: 0xFC01).description == "Command (0xfc01)")
        #expect(HCI.Opcode(rawValue: 0x0000).description == "Command (0x0000)")
    }

    /// Every command type has a name for log lines.
    @Test func everyCommandHasAName() {
        let opcodes: [HCI.Opcode] = [
            HCI.Disconnect.opcode, HCI.ReadRemoteVersionInformation.opcode, HCI.SetEventMask.opcode, HCI.Reset.opcode,
            HCI.WriteLEHostSupport.opcode, HCI.ReadLocalVersionInformation.opcode, HCI.ReadLocalSupportedFeatures.opcode,
            HCI.ReadBufferSize.opcode, HCI.ReadBDADDR.opcode, HCI.LESetEventMask.opcode, HCI.LEReadBufferSize.opcode,
            HCI.LEReadLocalSupportedFeatures.opcode, HCI.LESetRandomAddress.opcode, HCI.LESetAdvertisingEnable.opcode,
            HCI.LESetScanParameters.opcode, HCI.LESetScanEnable.opcode, HCI.LECreateConnection.opcode,
            HCI.LECreateConnectionCancel.opcode, HCI.LEConnectionUpdate.opcode, HCI.LERand.opcode,
            HCI.LEEnableEncryption.opcode, HCI.LELongTermKeyRequestReply.opcode, HCI.LELongTermKeyRequestNegativeReply.opcode,
        ]
        #expect(Set(opcodes.map(\.rawValue)).count == opcodes.count, "no two commands share an opcode")
        for opcode in opcodes {
            #expect(!opcode.description.hasPrefix("Command ("), "\(opcode) has no name")
        }
    }

    @Test(arguments: [
        ("01 03 0C 00", HCI.Packet.command([0x03, 0x0C, 0x00])),
        ("02 40 20 00 00", .aclData([0x40, 0x20, 0x00, 0x00])),
        ("04 0E 04 01 03 0C 00", .event([0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])),
        ("03 01 00 00", .other(type: 0x03, [0x01, 0x00, 0x00])),
        ("05 01 00 00 00", .other(type: 0x05, [0x01, 0x00, 0x00, 0x00])),
        ("FF AA", .other(type: 0xFF, [0xAA])),
        ("04", .event([])),
    ])
    func splitsAndRebuildsH4Packets(_ hex: String, _ packet: HCI.Packet) throws {
        let bytes = [UInt8](hex: hex)
        #expect(try HCI.Packet(h4: bytes) == packet)
        #expect(packet.h4Bytes == bytes)
    }

    @Test func emptyH4PacketThrows() {
        #expect(throws: WireError.truncated(field: "H4 indicator", needed: 1, available: 0)) {
            try HCI.Packet(h4: [])
        }
    }
}
