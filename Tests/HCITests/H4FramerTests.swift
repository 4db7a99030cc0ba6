import Testing
import Wire
@testable import HCI

/// A small seeded generator (SplitMix64) so "random" splits are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// H4 framing (Core v5.4 Vol 4 Part A §2; indicators and headers in docs/protocols/btsnoop-h4.md
/// §H4; docs/protocols/hci.md §Packet headers).
struct H4FramerTests {
    /// One packet of every kind, including empty payloads, a 2-byte ACL length and an ISO
    /// length whose top two bits (flags) must be masked off.
    static let packets: [[UInt8]] = [
        [UInt8](hex: "01 03 0C 00"),                                  // Reset
        [UInt8](hex: "04 0E 04 01 03 0C 00"),                         // its Command Complete
        [UInt8](hex: "02 40 20 07 00 03 00 04 00 0A 03 00"),          // ATT Read Request
        [UInt8](hex: "03 01 00 02 AA BB"),                            // SCO
        [UInt8](hex: "05 01 00 03 C0 01 02 03"),                      // ISO, length 3 with flag bits set
        [UInt8](hex: "04 13 05 01 40 00 01 00"),                      // Number Of Completed Packets
        [UInt8](hex: "02 41 00 00 00"),                               // empty ACL
        [UInt8](hex: "04 FF 00"),                                     // empty vendor event
        [UInt8](hex: "02 40 20 2C 01") + [UInt8](repeating: 0x5A, count: 300),
        [UInt8](hex: "04 3E 0C 02 01 03 00 55 44 33 22 11 C0 00 7F"), // advertising report
    ]
    static let stream = packets.flatMap { $0 }

    static func drain(_ framer: inout HCI.H4Framer) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        while let packet = try framer.nextPacket() { out.append(packet) }
        return out
    }

    @Test func allAtOnce() throws {
        var framer = HCI.H4Framer()
        framer.append(Self.stream)
        #expect(try Self.drain(&framer) == Self.packets)
        #expect(framer.pendingCount == 0)
        #expect(try framer.nextPacket() == nil)
    }

    @Test func byteByByte() throws {
        var framer = HCI.H4Framer()
        var out: [[UInt8]] = []
        for byte in Self.stream {
            framer.append(CollectionOfOne(byte))
            out += try Self.drain(&framer)
        }
        #expect(out == Self.packets)
        #expect(framer.pendingCount == 0)
    }

    @Test(arguments: 0..<32)
    func randomSplits(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var framer = HCI.H4Framer()
        var out: [[UInt8]] = []
        var i = 0
        while i < Self.stream.count {
            let n = min(Int.random(in: 1...40, using: &rng), Self.stream.count - i)
            framer.append(Self.stream[i..<(i + n)])
            i += n
            // Sometimes let bytes pile up before reading, as a slow consumer would.
            if Bool.random(using: &rng) { out += try Self.drain(&framer) }
        }
        out += try Self.drain(&framer)
        #expect(out == Self.packets)
    }

    @Test func partialPacketsWaitForMoreBytes() throws {
        var framer = HCI.H4Framer()
        framer.append([0x02, 0x40])
        #expect(try framer.nextPacket() == nil, "header incomplete")
        framer.append([0x20, 0x07, 0x00, 0x03])
        #expect(try framer.nextPacket() == nil, "payload incomplete")
        #expect(framer.pendingCount == 6)
        framer.append([0x00, 0x04, 0x00, 0x0A, 0x03, 0x00, 0x01])
        #expect(try framer.nextPacket() == Self.packets[2])
        #expect(framer.pendingCount == 1)
        #expect(try framer.nextPacket() == nil)
        framer.reset()
        #expect(framer.pendingCount == 0)
        framer.append(Self.packets[0])
        #expect(try framer.nextPacket() == Self.packets[0])
    }

    /// Many packets through one framer, never fully drained, so the buffer compacts.
    @Test func longStreamCompactsItsBuffer() throws {
        var rng = SplitMix64(seed: 0xB1E)
        var expected: [[UInt8]] = []
        for _ in 0..<2_000 {
            expected.append(Self.packets[Int.random(in: 0..<Self.packets.count, using: &rng)])
        }
        let stream = expected.flatMap { $0 }
        var framer = HCI.H4Framer()
        var out: [[UInt8]] = []
        var i = 0
        while i < stream.count {
            let n = min(997, stream.count - i)
            framer.append(stream[i..<(i + n)])
            i += n
            out += try Self.drain(&framer)
            #expect(framer.pendingCount < 400)
        }
        #expect(out.count == expected.count)
        #expect(out == expected)
    }

    @Test(arguments: [UInt8(0x00), 0x06, 0x7F, 0xFF])
    func unknownIndicatorIsReported(_ indicator: UInt8) throws {
        var framer = HCI.H4Framer()
        framer.append(Self.packets[0] + [indicator, 0x00, 0x00])
        #expect(try framer.nextPacket() == Self.packets[0], "packets before the loss of sync still come out")
        #expect(throws: HCI.H4Framer.FramingError.unknownPacketIndicator(indicator)) { try framer.nextPacket() }
        framer.reset()
        framer.append(Self.packets[1])
        #expect(try framer.nextPacket() == Self.packets[1], "a reset recovers")
    }

    /// A length field beyond the limit is rejected as soon as the header is in, before the
    /// framer waits for (and buffers) a payload that is never coming.
    @Test(arguments: [
        ("02 40 20 64 00", 1 + 4 + 100),
        ("04 3E FF", 1 + 2 + 255),
        ("01 03 0C FF", 1 + 3 + 255),
        ("05 01 00 FF 3F", 1 + 4 + 0x3FFF),
        ("03 01 00 80", 1 + 3 + 128),
    ])
    func oversizedPacketIsReported(_ header: String, _ total: Int) {
        var framer = HCI.H4Framer(maximumPacketLength: 64)
        framer.append([UInt8](hex: header))
        #expect(throws: HCI.H4Framer.FramingError.oversizedPacket(length: total)) { try framer.nextPacket() }
    }

    @Test func packetExactlyAtTheLimitPasses() throws {
        var framer = HCI.H4Framer(maximumPacketLength: 16)
        let packet = [UInt8](hex: "02 40 20 0B 00") + [UInt8](repeating: 1, count: 11)
        #expect(packet.count == 16)
        framer.append(packet)
        #expect(try framer.nextPacket() == packet)
        #expect(framer.maximumPacketLength == 16)
        #expect(HCI.H4Framer().maximumPacketLength == 4 + 65535)
    }

    @Test func framedPacketsSplitIntoTypedPackets() throws {
        var framer = HCI.H4Framer()
        framer.append(Self.stream)
        let typed = try Self.drain(&framer).map { try HCI.Packet(h4: $0) }
        guard case .event(let bytes) = typed[1] else { Issue.record("got \(typed[1])"); return }
        #expect(try HCI.Event(bytes: bytes) == .commandComplete(.init(numCommandPackets: 1, opcode: HCI.Reset.opcode, returnParameters: [0])))
        guard case .aclData(let acl) = typed[2] else { Issue.record("got \(typed[2])"); return }
        #expect(try HCI.ACLData(bytes: acl).data == [UInt8](hex: "03 00 04 00 0A 03 00"))
    }
}
