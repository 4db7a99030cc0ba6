import Bluetooth
import Readings
import Testing
@testable import Transmitters

@Suite struct RememberedTransmittersTests {
    static let strap = DeviceAddress(Address("C0:11:22:33:44:55")!, type: .random)
    static let dexcom = DeviceAddress(Address("00:1B:DC:01:02:03")!, type: .public)

    @Test func remembersOnceAndRoundTrips() throws {
        var memory = RememberedTransmitters()
        let first = try memory.rememberIfNew(Self.strap, for: "hr1")
        let second = try memory.rememberIfNew(Self.dexcom, for: "dexcom")
        #expect(first && second)
        // A later connection to another address does not overwrite the first.
        let overwritten = try memory.rememberIfNew(Self.dexcom, for: "hr1")
        #expect(!overwritten)
        #expect(memory.address(for: "hr1") == Self.strap)

        let text = memory.serialized
        #expect(text == "dexcom 00:1B:DC:01:02:03 public\nhr1 C0:11:22:33:44:55 random\n")
        #expect(try RememberedTransmitters(parsing: text) == memory)
    }

    @Test func everyAddressTypeRoundTrips() throws {
        var memory = RememberedTransmitters()
        for (index, type) in [AddressType.public, .random, .publicIdentity, .randomIdentity].enumerated() {
            try memory.rememberIfNew(DeviceAddress(Address(value: UInt64(index)), type: type), for: DeviceID("t\(index)"))
        }
        #expect(memory.serialized.contains("t2 00:00:00:00:00:02 public-id\n"))
        #expect(memory.serialized.contains("t3 00:00:00:00:00:03 random-id\n"))
        #expect(try RememberedTransmitters(parsing: memory.serialized) == memory)
    }

    @Test func forgets() throws {
        var memory = RememberedTransmitters(["hr1": Self.strap])
        let forgotten = memory.forget("hr1")
        let forgottenAgain = memory.forget("hr1")
        #expect(forgotten && !forgottenAgain)
        #expect(memory.address(for: "hr1") == nil)
        #expect(memory.serialized == "")
        let remembered = try memory.rememberIfNew(Self.dexcom, for: "hr1")
        #expect(remembered)
    }

    @Test func toleratesCommentsBlankLinesCRLFAndTabs() throws {
        let text = "# remembered at first connection\r\n\r\nhr1\tc0:11:22:33:44:55  random\r\n   \n"
        let memory = try RememberedTransmitters(parsing: text)
        #expect(memory.addresses == ["hr1": Self.strap])
        #expect(try RememberedTransmitters(parsing: "").addresses.isEmpty)
    }

    @Test(arguments: [
        ("hr1 C0:11:22:33:44:55", RememberedTransmittersError.badLine(1, reason: "expected NAME ADDRESS TYPE, found 2 field(s)")),
        ("hr1 C0:11:22:33:44:55 random extra", .badLine(1, reason: "expected NAME ADDRESS TYPE, found 4 field(s)")),
        ("# ok\nhr1 C0:11:22:33:44 random", .badLine(2, reason: "invalid address \"C0:11:22:33:44\"")),
        ("hr1 C0:11:22:33:44:GG random", .badLine(1, reason: "invalid address \"C0:11:22:33:44:GG\"")),
        ("hr1 C0:11:22:33:44:55 Random", .badLine(1, reason: "invalid address type \"Random\" (public, random, public-id, random-id)")),
        ("hr1 C0:11:22:33:44:55 1", .badLine(1, reason: "invalid address type \"1\" (public, random, public-id, random-id)")),
        ("hr1 C0:11:22:33:44:55 random\n\nhr1 C0:11:22:33:44:56 random",
         .badLine(3, reason: "hr1 remembered twice")),
    ])
    func rejectsBadInputWithTheLine(text: String, error: RememberedTransmittersError) {
        #expect(throws: error) { try RememberedTransmitters(parsing: text) }
    }

    @Test(arguments: ["", "two words", "#hash", "tab\there", "new\nline"])
    func refusesNamesTheTextFormCannotHold(name: String) {
        var memory = RememberedTransmitters()
        #expect(throws: RememberedTransmittersError.invalidName(name)) { try memory.rememberIfNew(Self.strap, for: DeviceID(name)) }
        #expect(memory.addresses.isEmpty)
    }
}
