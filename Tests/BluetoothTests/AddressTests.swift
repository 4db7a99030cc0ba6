import Testing
import Wire
@testable import Bluetooth

/// Addresses: written most-significant first for people, sent least-significant first
/// (Core v5.4 Vol 6 Part B §1.3; Vol 4 Part E §5.2).
struct AddressTests {
    static let sample = Address(value: 0xC0_1122_3344_55)

    @Test func parsesAndPrintsMostSignificantFirst() throws {
        let a = try #require(Address("C0:11:22:33:44:55"))
        #expect(a.value == 0xC011_2233_4455)
        #expect(a.description == "C0:11:22:33:44:55")
        #expect(Address("c0-11-22-33-44-55") == a)
        #expect(Address(value: 0x0A).description == "00:00:00:00:00:0A")
    }

    @Test func wireOrderIsLeastSignificantFirst() throws {
        #expect(Self.sample.wireBytes == [0x55, 0x44, 0x33, 0x22, 0x11, 0xC0])
        #expect(Address(wireBytes: [UInt8](hex: "55 44 33 22 11 c0")) == Self.sample)
        #expect(Address(wireBytes: [UInt8](hex: "ff 55 44 33 22 11 c0")[1...]) == Self.sample)

        var w = ByteWriter()
        w.write(Self.sample)
        #expect(w.bytes == [0x55, 0x44, 0x33, 0x22, 0x11, 0xC0])
        var r = ByteReader(w.bytes + [0x99])
        #expect(try r.readAddress() == Self.sample)
        #expect(r.remainingCount == 1)
    }

    @Test func readAddressNamesTheField() {
        var r = ByteReader([1, 2, 3, 4, 5])
        #expect(throws: WireError.truncated(field: "Peer_Address", needed: 6, available: 5)) {
            try r.readAddress("Peer_Address")
        }
        var d = ByteReader([])
        #expect(throws: WireError.truncated(field: "address", needed: 6, available: 0)) { try d.readAddress() }
    }

    @Test func valueIsMaskedTo48Bits() {
        #expect(Address(value: 0xFFFF_C011_2233_4455) == Self.sample)
        #expect(Address(value: .max).description == "FF:FF:FF:FF:FF:FF")
    }

    @Test(arguments: [
        "", "C0:11:22:33:44", "C0:11:22:33:44:55:66", "C0:11:22:33:44:5", "C0:11:22:33:44:555",
        "G0:11:22:33:44:55", "C0 11 22 33 44 55", "C011.2233.4455", "C01122334455",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(Address(text) == nil)
    }

    /// `split` drops empty pieces and `UInt8(_:radix:)` accepts a sign, so text that is not
    /// an address still parses.
    @Test(arguments: ["C0:11:22:33:44:55:", ":C0:11:22:33:44:55", "C0::11:22:33:44:55", "+0:11:22:33:44:55"])
    func rejectsLenientlyAcceptedText(_ text: String) {
        #expect(Address(text) == nil)
    }

    /// Random static: the two most significant bits are 1 (Vol 6 Part B §1.3.2.1).
    @Test(arguments: [
        ("C0:00:00:00:00:00", true), ("FF:FF:FF:FF:FF:FF", true), ("C1:23:45:67:89:AB", true),
        ("80:00:00:00:00:00", false), ("40:00:00:00:00:00", false), ("3F:FF:FF:FF:FF:FF", false),
        ("BF:FF:FF:FF:FF:FF", false), ("00:00:00:00:00:C0", false),
    ])
    func randomStaticBits(_ text: String, _ isRandomStatic: Bool) throws {
        #expect(try #require(Address(text)).isRandomStatic == isRandomStatic)
    }

    @Test func ordersByValue() throws {
        let a = try #require(Address("00:00:00:00:00:FF"))
        let b = try #require(Address("00:00:00:00:01:00"))
        #expect(a < b)
        #expect(!(b < a))
    }

    @Test func addressTypes() {
        #expect(AddressType.public.rawValue == 0)
        #expect(AddressType.random.rawValue == 1)
        #expect(AddressType.publicIdentity.rawValue == 2)
        #expect(AddressType.randomIdentity.rawValue == 3)
        #expect(AddressType(rawValue: 4) == nil)
        #expect([AddressType.public, .random, .publicIdentity, .randomIdentity].map(\.isRandom) == [false, true, false, true])
        #expect([AddressType.public, .random, .publicIdentity, .randomIdentity].map(\.description) == ["public", "random", "public-id", "random-id"])
    }

    /// The type is part of identity: the same 48 bits as public and as random are two devices.
    @Test func deviceAddressIdentityIncludesTheType() {
        let pub = DeviceAddress(Self.sample, type: .public)
        let rnd = DeviceAddress(Self.sample, type: .random)
        #expect(pub != rnd)
        #expect(Set([pub, rnd, DeviceAddress(Self.sample, type: .public)]).count == 2)
        #expect(pub < rnd)
        #expect(DeviceAddress(Address(value: 1), type: .random) < pub, "address first, then type")
        #expect(rnd.description == "C0:11:22:33:44:55 (random)")
    }
}
