import HCI
import Testing
@testable import Simulator

/// Each encoder against a hand-written byte vector (layouts per Core v5.4 Vol 4 Part E §7.7)
/// and back through Vigil's own decoder, so the two sides are checked against each other.
@Suite struct HCIEventEncodingTests {
    @Test func commandComplete() throws {
        let event = HCI.CommandComplete(numCommandPackets: 1, opcode: HCI.Reset.opcode, returnParameters: [0x00])
        #expect(event.eventBytes == [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
        #expect(try HCI.Event(bytes: event.eventBytes) == .commandComplete(event))
    }

    @Test func commandStatus() throws {
        let event = HCI.CommandStatus(status: .success, numCommandPackets: 2, opcode: HCI.LECreateConnection.opcode)
        #expect(event.eventBytes == [0x0F, 0x04, 0x00, 0x02, 0x0D, 0x20])
        #expect(try HCI.Event(bytes: event.eventBytes) == .commandStatus(event))
    }

    @Test func disconnectionComplete() throws {
        let event = HCI.DisconnectionComplete(status: .success, handle: 0x0040, reason: .connectionTimeout)
        #expect(event.eventBytes == [0x05, 0x04, 0x00, 0x40, 0x00, 0x08])
        #expect(try HCI.Event(bytes: event.eventBytes) == .disconnectionComplete(event))
    }

    @Test func encryptionChange() throws {
        let event = HCI.EncryptionChange(status: .pinOrKeyMissing, handle: 0x0041, enabled: false)
        #expect(event.eventBytes == [0x08, 0x04, 0x06, 0x41, 0x00, 0x00])
        #expect(try HCI.Event(bytes: event.eventBytes) == .encryptionChange(event))
    }

    @Test func connectionUpdateComplete() throws {
        let event = HCI.LEConnectionUpdateComplete(status: .success, handle: 0x0040, interval: 0x0050, latency: 4, supervisionTimeout: 0x0258)
        #expect(event.eventBytes == [0x3E, 0x0A, 0x03, 0x00, 0x40, 0x00, 0x50, 0x00, 0x04, 0x00, 0x58, 0x02])
        #expect(try HCI.Event(bytes: event.eventBytes) == .le(.connectionUpdateComplete(event)))
    }

    @Test func numberOfCompletedPackets() throws {
        let entries = [HCI.CompletedPackets(handle: 0x0040, count: 1), HCI.CompletedPackets(handle: 0x0041, count: 3)]
        let bytes = HCI.numberOfCompletedPacketsBytes(entries)
        #expect(bytes == [0x13, 0x09, 0x02, 0x40, 0x00, 0x01, 0x00, 0x41, 0x00, 0x03, 0x00])
        #expect(try HCI.Event(bytes: bytes) == .numberOfCompletedPackets(entries))
    }

    @Test func hardwareError() throws {
        #expect(HCI.hardwareErrorBytes(code: 0x2A) == [0x10, 0x01, 0x2A])
        #expect(try HCI.Event(bytes: HCI.hardwareErrorBytes(code: 0x2A)) == .hardwareError(code: 0x2A))
    }
}
