import Testing
@testable import Transmitters

/// What drivers keep between runs, and how an earlier run's state is taken back.
@Suite struct PersistentDriverStateTests {
    /// A meter's newest record taken: its number and its date on the meter's clock.
    @Test func aMeterSavesItsLastRecord() {
        var driver = GlucoseMeterDriver(device: "meter")
        #expect(driver.persistentState == [:])
        driver.restore(["last-sequence": "12", "last-record": "2026-11-22T07:30:00"])
        #expect(driver.persistentState == ["last-sequence": "12", "last-record": "2026-11-22T07:30:00"])
    }

    /// A state saved before resets were followed (the number alone) still restores, and still
    /// only moves the start forward past a configured `last-sequence`, as it always did.
    @Test(arguments: [(UInt16(300), "200", UInt16(300)), (100, "200", 200)])
    func aSequenceNumberAloneOnlyMovesTheStartForward(configured: UInt16, saved: String, expected: UInt16) {
        var driver = GlucoseMeterDriver(device: "meter", configuration: .init(lastSequenceNumber: configured))
        driver.restore(["last-sequence": saved])
        #expect(driver.lastSequenceNumber == expected)
        #expect(driver.lastRecordRun == nil)
    }

    /// A state that names the record's date is what the meter last said: it wins over a
    /// configured `last-sequence` even when lower (the meter's numbers restarted since).
    @Test func aStateWithTheRecordsDateWins() {
        var driver = GlucoseMeterDriver(device: "meter", configuration: .init(lastSequenceNumber: 300))
        driver.restore(["last-sequence": "3", "last-record": "2026-12-01T08:00:00"])
        #expect(driver.lastSequenceNumber == 3)
        #expect(driver.lastRecordRun == "2026-12-01T08:00:00")
    }

    @Test(arguments: [[:], ["last-sequence": "70000"], ["last-sequence": "x", "last-record": "2026-12-01T08:00:00"]])
    func nothingUsableChangesNothing(state: [String: String]) {
        var driver = GlucoseMeterDriver(device: "meter", configuration: .init(lastSequenceNumber: 5))
        driver.restore(state)
        #expect(driver.lastSequenceNumber == 5)
        #expect(driver.lastRecordRun == nil)
    }
}
