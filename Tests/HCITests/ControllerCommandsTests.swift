import Testing
import Bluetooth
import Wire
@testable import HCI

/// Link control, controller & baseband and informational commands (Core v5.4 Vol 4 Part E
/// §7.1, §7.3, §7.4). Vectors are built from the parameter tables in docs/protocols/hci.md
/// §Commands (BlueZ hci.h structs); `03 0C 00` is the Reset every HCI trace starts with.
struct ControllerCommandsTests {
    static let address = Address(value: 0xC011_2233_4455)

    @Test func reset() {
        expectCommand(HCI.Reset(), "03 0C 00")
    }

    @Test func disconnect() {
        expectCommand(HCI.Disconnect(handle: 0x0040), "06 04 03 40 00 13")
        expectCommand(HCI.Disconnect(handle: 0x0EFF, reason: .authenticationFailure), "06 04 03 FF 0E 05")
    }

    /// Flag bits above the 12-bit handle are dropped when decoding.
    @Test func disconnectDecodeMasksTheHandle() throws {
        let d = try HCI.Disconnect.decode(commandBytes: [UInt8](hex: "06 04 03 40 30 16"))
        #expect(d.handle == 0x0040)
        #expect(d.reason == .localHostTerminated)
    }

    @Test func readRemoteVersionInformation() {
        expectCommand(HCI.ReadRemoteVersionInformation(handle: 0x0040), "1D 04 02 40 00")
    }

    /// Bits 4, 7, 11, 15, 47, 61 (BlueZ `events_table`): 0x2000_8000_0000_8890.
    @Test func setEventMask() {
        #expect(HCI.SetEventMask.vigilDefault == 0x2000_8000_0000_8890)
        expectCommand(HCI.SetEventMask(), "01 0C 08 90 88 00 00 00 80 00 20")
        // The "spec default plus LE Meta" value quoted in docs/protocols/hci.md §Commands.
        expectCommand(HCI.SetEventMask(mask: 0x2000_1FFF_FFFF_FFFF), "01 0C 08 FF FF FF FF FF 1F 00 20")
    }

    @Test func writeLEHostSupport() {
        expectCommand(HCI.WriteLEHostSupport(), "6D 0C 02 01 00")
        expectCommand(HCI.WriteLEHostSupport(leSupported: false), "6D 0C 02 00 00")
    }

    @Test func parameterlessInformationalCommands() {
        expectCommand(HCI.ReadLocalVersionInformation(), "01 10 00")
        expectCommand(HCI.ReadLocalSupportedFeatures(), "03 10 00")
        expectCommand(HCI.ReadBufferSize(), "05 10 00")
        expectCommand(HCI.ReadBDADDR(), "09 10 00")
    }

    /// Return: status · HCI_Version · HCI_Subversion · LMP_Version · Company · LMP_Subversion (§7.4.1).
    @Test func readLocalVersionReturn() throws {
        let bytes = [UInt8](hex: "00 0C 34 12 0C 0F 00 78 56")
        let r = try HCI.ReadLocalVersionInformation.Return(returnParameters: bytes)
        #expect(r.hciVersion == 0x0C)         // Core 5.3
        #expect(r.hciSubversion == 0x1234)
        #expect(r.lmpVersion == 0x0C)
        #expect(r.manufacturer == 0x000F)      // Broadcom
        #expect(r.lmpSubversion == 0x5678)
        #expect(r.returnParameters == bytes)
        #expect(throws: WireError.truncated(field: "LMP_Subversion", needed: 2, available: 1)) {
            try HCI.ReadLocalVersionInformation.Return(returnParameters: Array(bytes.dropLast()))
        }
        #expect(throws: WireError.truncated(field: "status", needed: 1, available: 0)) {
            try HCI.ReadLocalVersionInformation.Return(returnParameters: [])
        }
    }

    /// Return: status · ACL length u16 · SCO length u8 · ACL packets u16 · SCO packets u16 (§7.4.5).
    @Test func readBufferSizeReturn() throws {
        let r = try HCI.ReadBufferSize.Return(returnParameters: [UInt8](hex: "00 FD 03 40 0A 00 08 00"))
        #expect(r.aclDataPacketLength == 1021)
        #expect(r.totalNumACLDataPackets == 10)
        #expect(throws: WireError.truncated(field: "Total_Num_ACL_Data_Packets", needed: 2, available: 1)) {
            try HCI.ReadBufferSize.Return(returnParameters: [UInt8](hex: "00 FD 03 40 0A"))
        }
    }

    @Test func readBDADDRReturn() throws {
        let bytes = [UInt8](hex: "00 55 44 33 22 11 C0")
        let r = try HCI.ReadBDADDR.Return(returnParameters: bytes)
        #expect(r.address == Self.address)
        #expect(r.returnParameters == bytes)
        #expect(throws: WireError.truncated(field: "BD_ADDR", needed: 6, available: 5)) {
            try HCI.ReadBDADDR.Return(returnParameters: Array(bytes.dropLast()))
        }
    }
}
