import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

/// What is kept across restarts (DexcomG7Driver+Persistence.swift).
struct DexcomG7DriverPersistenceTests {
    typealias T = DexcomG7DriverTests
    typealias Harness = DexcomG7DriverTests.Harness

    @Test func aKeyAgreedWithAnotherCodeIsNotRestored() {
        var h = Harness(code: "5678")
        h.driver.restore(["session-key": Hex.encode([UInt8](repeating: 7, count: 16)), "key-for-code": DexcomG7Driver.fingerprint(of: "1234"), "bonded": "true"])
        #expect(h.driver.sessionKey == nil)
        #expect(!h.driver.hasBonded)
    }
}
