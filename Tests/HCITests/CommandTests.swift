import Testing
import Wire
@testable import HCI

/// Checks one command both ways: its exact packet (opcode · length · parameters, Core v5.4
/// Vol 4 Part E §5.4.1) and its decoding through both decode paths.
func expectCommand<C: HCICommand & Equatable>(
    _ command: C, _ hex: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    let bytes = [UInt8](hex: hex)
    #expect(command.commandBytes == bytes, sourceLocation: sourceLocation)
    #expect(Int(bytes[2]) == bytes.count - 3, "the test vector's own length byte", sourceLocation: sourceLocation)
    #expect((try? C.decode(commandBytes: bytes)) == command, sourceLocation: sourceLocation)
    let packet = HCI.CommandPacket(command)
    #expect(packet.opcode == C.opcode, sourceLocation: sourceLocation)
    #expect(packet.bytes == bytes, sourceLocation: sourceLocation)
    #expect((try? HCI.CommandPacket(bytes: bytes)) == packet, sourceLocation: sourceLocation)
    #expect((try? packet.decode(as: C.self)) == command, sourceLocation: sourceLocation)
}

/// The generic command machinery: `commandBytes`, `decode(commandBytes:)` and `CommandPacket`.
struct CommandTests {
    @Test func decodeChecksTheOpcode() {
        #expect(throws: WireError.invalidValue(field: "opcode", value: 0x0C01)) {
            try HCI.Reset.decode(commandBytes: [0x01, 0x0C, 0x00])
        }
    }

    @Test(arguments: [
        ("", WireError.truncated(field: "opcode", needed: 2, available: 0)),
        ("03", .truncated(field: "opcode", needed: 2, available: 1)),
        ("03 0C", .truncated(field: "parameter length", needed: 1, available: 0)),
        ("03 0C 01", .malformed("parameter length 1 but 0 byte(s) follow")),
        ("03 0C 00 00", .malformed("parameter length 0 but 1 byte(s) follow")),
        ("03 0C 01 00", .trailingBytes(what: "command parameters", count: 1)),
    ])
    func resetRejections(_ hex: String, _ error: WireError) {
        #expect(throws: error) { try HCI.Reset.decode(commandBytes: [UInt8](hex: hex)) }
    }

    @Test(arguments: [
        ("06 04 01 40", WireError.truncated(field: "handle", needed: 2, available: 1)),
        ("06 04 02 40 00", .truncated(field: "reason", needed: 1, available: 0)),
        ("06 04 04 40 00 13 00", .trailingBytes(what: "command parameters", count: 1)),
        ("06 04 03 40 00", .malformed("parameter length 3 but 2 byte(s) follow")),
        ("06 04 FF 40 00 13", .malformed("parameter length 255 but 3 byte(s) follow")),
    ])
    func disconnectRejections(_ hex: String, _ error: WireError) {
        #expect(throws: error) { try HCI.Disconnect.decode(commandBytes: [UInt8](hex: hex)) }
    }

    @Test func commandPacketSplitsOpcodeAndParameters() throws {
        let packet = try HCI.CommandPacket(bytes: [UInt8](hex: "0B 20 07 01 60 00 30 00 01 00"))
        #expect(packet.opcode == HCI.LESetScanParameters.opcode)
        #expect(packet.parameters == [UInt8](hex: "01 60 00 30 00 01 00"))
        #expect(packet.bytes == [UInt8](hex: "0B 20 07 01 60 00 30 00 01 00"))

        let vendor = HCI.CommandPacket(opcode: HCI.Opcode(rawValue: 0xFC01), parameters: [0xAA])
        #expect(vendor.bytes == [0x01, 0xFC, 0x01, 0xAA])
    }

    @Test(arguments: [
        ("", WireError.truncated(field: "opcode", needed: 2, available: 0)),
        ("03 0C", .truncated(field: "parameter length", needed: 1, available: 0)),
        ("03 0C 01", .malformed("command parameter length 1 but 0 byte(s) follow")),
        ("03 0C 00 00", .malformed("command parameter length 0 but 1 byte(s) follow")),
        ("0B 20 07 01 60 00 30 00 01", .malformed("command parameter length 7 but 6 byte(s) follow")),
    ])
    func commandPacketLengthChecks(_ hex: String, _ error: WireError) {
        #expect(throws: error) { try HCI.CommandPacket(bytes: [UInt8](hex: hex)) }
    }

    /// Parameter_Total_Length is one byte: 255 is the largest packet that can be written (a
    /// longer one is refused by a precondition in `init(opcode:parameters:)`, never written
    /// with a wrapped length the controller would misframe).
    @Test func commandPacketNeverWritesAWrappedLength() throws {
        let full = HCI.CommandPacket(opcode: HCI.Opcode(rawValue: 0xFC01), parameters: [UInt8](repeating: 0xAA, count: 255))
        #expect(try HCI.CommandPacket(bytes: full.bytes) == full, "255 bytes is the largest that round-trips")
    }

    @Test func decodeAsAnotherCommandIsNil() throws {
        let packet = HCI.CommandPacket(HCI.Reset())
        #expect(try packet.decode(as: HCI.LERand.self) == nil)
        #expect(try packet.decode(as: HCI.Reset.self) == HCI.Reset())
    }

    @Test func decodeAsChecksTheParameters() {
        let short = HCI.CommandPacket(opcode: HCI.Disconnect.opcode, parameters: [0x40, 0x00])
        #expect(throws: WireError.truncated(field: "reason", needed: 1, available: 0)) {
            try short.decode(as: HCI.Disconnect.self)
        }
        let long = HCI.CommandPacket(opcode: HCI.Reset.opcode, parameters: [0x00])
        #expect(throws: WireError.trailingBytes(what: "command parameters", count: 1)) {
            try long.decode(as: HCI.Reset.self)
        }
    }
}
