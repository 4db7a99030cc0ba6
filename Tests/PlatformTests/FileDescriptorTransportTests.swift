import Clocks
import Glibc
import Testing
@testable import Platform

/// A connected AF_UNIX SOCK_SEQPACKET pair: keeps packet boundaries like the HCI user channel
/// and reports truncation the same way (MSG_TRUNC), so packet semantics are testable here.
private func packetPair() throws -> (FileDescriptorTransport, FileDescriptorTransport) {
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0 else {
        throw PlatformError.system("socketpair", errno: errno)
    }
    return (try FileDescriptorTransport(adopting: fds[0], kind: .packetSocket, name: "packet a"),
            try FileDescriptorTransport(adopting: fds[1], kind: .packetSocket, name: "packet b"))
}

@Suite struct FileDescriptorTransportTests {
    @Test func packetSocketReadsOnePacketAtATime() throws {
        let (a, b) = try packetPair()
        // Two H4 packets: HCI Reset, then LE Set Scan Enable (Core v5.4 Vol 4 Part E 7.3.2, 7.8.11).
        try a.write([0x01, 0x03, 0x0C, 0x00])
        try a.write([0x01, 0x0C, 0x20, 0x02, 0x01, 0x00])
        var buffer: [UInt8] = []
        #expect(try b.read(into: &buffer, maxCount: HCIUserChannel.maximumPacketSize) == 4)
        #expect(buffer == [0x01, 0x03, 0x0C, 0x00])
        #expect(try b.read(into: &buffer, maxCount: HCIUserChannel.maximumPacketSize) == 6)
        #expect(buffer == [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00])
    }

    @Test func truncatedPacketIsAnErrorNotSilentlyCut() throws {
        let (a, b) = try packetPair()
        try a.write([UInt8](repeating: 0x02, count: 100))
        var buffer: [UInt8] = []
        do {
            _ = try b.read(into: &buffer, maxCount: 10)
            Issue.record("a 100-byte packet was read into 10 bytes without complaint")
        } catch {
            #expect(error.errno == EMSGSIZE)
            #expect(error.hint == "read with maxCount of at least \(HCIUserChannel.maximumPacketSize)")
        }
    }

    @Test func bufferIsReplacedNotAppended() throws {
        let (a, b) = try packetPair()
        try a.write([1, 2, 3])
        var buffer: [UInt8] = [9, 9, 9, 9, 9, 9]
        #expect(try b.read(into: &buffer, maxCount: 64) == 3)
        #expect(buffer == [1, 2, 3])
    }

    @Test(arguments: [0, -1])
    func nonPositiveMaxCountIsRejected(maxCount: Int) throws {
        let (_, b) = try packetPair()
        var buffer: [UInt8] = []
        #expect(throws: PlatformError(operation: "read(packet b)", errno: EINVAL, reason: "maxCount must be at least 1, not \(maxCount)")) {
            try b.read(into: &buffer, maxCount: maxCount)
        }
    }

    @Test func closeIsIdempotentAndLaterUseIsAnError() throws {
        let (a, _) = try packetPair()
        a.close()
        a.close()
        #expect(a.fileDescriptor == -1)
        do {
            try a.write([1])
            Issue.record("wrote to a closed transport")
        } catch {
            #expect(error.errno == EBADF)
            #expect(error.hint == "the transport is closed")
        }
    }

    @Test func emptyWriteDoesNothing() throws {
        let (a, b) = try packetPair()
        try a.write([])
        var buffer: [UInt8] = []
        #expect(throws: PlatformError.self) { try b.read(into: &buffer, maxCount: 16) }
    }
}
