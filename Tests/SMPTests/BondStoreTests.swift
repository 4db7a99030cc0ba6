import Bluetooth
import Clocks
import Testing
import Wire
@testable import SMP

/// The bond file's text form (format documented on `SMP.BondStore`).
struct BondStoreTests {
    static let created = WallClockTime(secondsSinceEpoch: 1_795_350_000)

    static let scBond = SMP.Bond(
        peer: DeviceAddress(Address("4F:11:22:33:44:55")!, type: .random),
        identityAddress: DeviceAddress(Address("00:1B:DC:AA:BB:CC")!, type: .public),
        identityResolvingKey: [UInt8](0x40...0x4F), longTermKey: [UInt8](0x00...0x0F), keySize: 16,
        secureConnections: true, signatureKey: [UInt8](0x70...0x7F))
    static let legacyBond = SMP.Bond(
        peer: DeviceAddress(Address("00:80:25:01:02:03")!, type: .public), longTermKey: [UInt8](0x10...0x1F),
        ediv: 0xBEEF, rand: 0x1122_3344_5566_7788, keySize: 7, secureConnections: false)

    @Test func roundTripsThroughText() {
        var store = SMP.BondStore()
        store.insert(Self.scBond, created: Self.created)
        store.insert(Self.legacyBond, created: Self.created + .seconds(60))
        let text = store.serialized()
        let (parsed, errors) = SMP.BondStore.parse(text)
        #expect(errors.isEmpty)
        #expect(parsed == store)
        #expect(parsed.bonds.count == 2)
        #expect(parsed.bond(for: Self.scBond.identityAddress!)?.created == Self.created)
    }

    @Test func writesTheDocumentedLineFormat() {
        var store = SMP.BondStore()
        store.insert(Self.legacyBond, created: Self.created)
        #expect(store.serialized() == """
            vigil-bonds 1
            peer=00:80:25:01:02:03/public identity=- irk=- ltk=101112131415161718191a1b1c1d1e1f ediv=beef \
            rand=1122334455667788 keysize=7 sc=0 auth=0 csrk=- created=1795350000000000

            """)
    }

    @Test func findsABondByIdentityOrByPairingAddressAndReplacesOnRepair() {
        var store = SMP.BondStore()
        store.insert(Self.scBond, created: Self.created)
        #expect(store.bond(for: Self.scBond.identityAddress!)?.longTermKey == Self.scBond.longTermKey)
        #expect(store.bond(for: Self.scBond.peer)?.longTermKey == Self.scBond.longTermKey)
        var renewed = Self.scBond
        renewed.longTermKey = [UInt8](repeating: 0xEE, count: 16)
        store.insert(renewed, created: Self.created + .seconds(1))
        #expect(store.bonds.count == 1)
        #expect(store.bond(for: Self.scBond.peer)?.longTermKey == renewed.longTermKey)
        #expect(store.remove(Self.scBond.identityAddress!) != nil)
        #expect(store.bonds.isEmpty)
    }

    @Test func findsABondByResolvingAPrivateAddressWithItsIRK() {
        // IRK and RPA from Core v5.4 Vol 3 Part H Appendix D.7 (ah sample data).
        var bond = Self.scBond
        bond.identityResolvingKey = spec("ec0234a357c8ad05341010a60a397d9b")
        var store = SMP.BondStore()
        store.insert(bond, created: Self.created)
        let rpa = DeviceAddress(Address("70:81:94:0D:FB:AA")!, type: .random)
        #expect(store.bond(for: rpa)?.identityAddress == bond.identityAddress)
        #expect(store.bond(for: DeviceAddress(Address("70:81:94:0D:FB:AB")!, type: .random)) == nil)
        #expect(store.bond(for: DeviceAddress(rpa.address, type: .public)) == nil)
    }

    @Test func badLinesAreReportedByNumberAndGoodOnesKept() {
        var good = SMP.BondStore()
        good.insert(Self.legacyBond, created: Self.created)
        let goodLine = good.serialized().split(separator: "\n")[1]
        let text = """
            vigil-bonds 1
            # a comment

            \(goodLine)
            peer=00:80:25:01:02:04/public identity=- irk=- ltk=1011 ediv=0 rand=0 keysize=16 sc=0 auth=0 csrk=- created=-
            peer=nonsense identity=- irk=- ltk=101112131415161718191a1b1c1d1e1f ediv=0 rand=0 keysize=16 sc=0 auth=0 csrk=- created=-
            peer=00:80:25:01:02:05/public identity=- irk=- ltk=101112131415161718191a1b1c1d1e1f ediv=0 rand=0 keysize=6 sc=0 auth=0 csrk=- created=-
            peer=00:80:25:01:02:06/public identity=- irk=- ltk=101112131415161718191a1b1c1d1e1f ediv=0 rand=0 keysize=16 sc=2 auth=0 csrk=- created=-
            peer=00:80:25:01:02:07/public ltk=101112131415161718191a1b1c1d1e1f
            garbage
            peer=00:80:25:01:02:08/public identity=- irk=- ltk=101112131415161718191a1b1c1d1e1f ediv=zz rand=0 keysize=16 sc=0 auth=0 csrk=- created=-
            """
        let (store, errors) = SMP.BondStore.parse(text)
        #expect(store == good)
        #expect(errors.map(\.line) == [5, 6, 7, 8, 9, 10, 11])
        #expect(errors.map(\.reason) == [
            "ltk is not 16 hex bytes", "bad peer address \"nonsense\"", "keysize must be 7...16",
            "sc must be 0 or 1, not \"2\"", "missing identity", "\"garbage\" is not key=value", "bad ediv",
        ])
    }

    @Test func aMissingOrNewerHeaderIsReportedButBondsAreStillRead() {
        var good = SMP.BondStore()
        good.insert(Self.legacyBond, created: Self.created)
        let line = String(good.serialized().split(separator: "\n")[1])
        let headless = SMP.BondStore.parse(line + "\n")
        #expect(headless.store == good)
        #expect(headless.errors == [.init(line: 1, reason: "missing header \"vigil-bonds 1\"")])
        let newer = SMP.BondStore.parse("vigil-bonds 2\n" + line + " future=1\n")
        #expect(newer.store == good)  // unknown keys are skipped
        #expect(newer.errors == [.init(line: 1, reason: "unsupported version \"vigil-bonds 2\"")])
    }

    @Test func anEmptyFileIsAnEmptyStore() {
        let (store, errors) = SMP.BondStore.parse("")
        #expect(store.bonds.isEmpty && errors.isEmpty)
        #expect(SMP.BondStore().serialized() == "vigil-bonds 1\n")
    }
}
