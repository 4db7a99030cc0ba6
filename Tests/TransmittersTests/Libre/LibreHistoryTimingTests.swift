import Testing
@testable import Transmitters

/// The one dating rule for the Libre history ring, in both directions the index and the minute
/// counter can disagree, and the cases it refuses.
@Suite struct LibreHistoryTimingTests {
    /// LibreTransmitter's documented example (`dateOfMostRecentHistoryValue` doc comment,
    /// LoopKit/LibreTransmitter): "if the current time in minutes (since start of sensor) is 67,
    /// the most recent value is 7 minutes old". In step: ((67 − 3) div 15) mod 32 = 4.
    @Test func libreTransmitterExample() throws {
        let timing = try LibreHistoryTiming(sensorAgeMinutes: 67, historyIndex: 4)
        #expect(timing.step == .indexMatchesTheAge)
        #expect(timing.newestMinutesBeforeRead == 7)
        #expect(timing.newestSensorMinute == 60)
        #expect(timing.minutesBeforeRead(ofHistoryRecord: 1) == 22)
        #expect(timing.sensorMinute(ofHistoryRecord: 3) == 15)
    }

    /// The real Libre 1 dump's fields (xDrip NFCReaderXTest.java `data_libre1`, LibreFixtures:
    /// age 4993, history index 12): delay =
    /// (4990 mod 15) + 3 = 13, (4990 div 15) mod 32 = 332 mod 32 = 12, in step. xDrip's own
    /// minute counter for the newest record, ((age − 3) / 15) × 15 = 4980, agrees.
    @Test func xDripDumpFields() throws {
        let timing = try LibreHistoryTiming(sensorAgeMinutes: 4993, historyIndex: 12)
        #expect(timing.step == .indexMatchesTheAge)
        #expect(timing.newestMinutesBeforeRead == 13)
        #expect(timing.newestSensorMinute == 4980)
        #expect(timing.minutesBeforeRead(ofHistoryRecord: 31) == 13 + 31 * 15)
    }

    /// Computed from LibreTransmitter's documented rule: the index moved before the minute
    /// counter. Age 4997: delay = (4994 mod 15) + 3 = 17, predicted (4994 div 15) mod 32 = 12;
    /// index 13 → the newest record is 17 − 15 = 2 minutes old, at sensor minute 4995.
    @Test func indexMovedFirst() throws {
        let timing = try LibreHistoryTiming(sensorAgeMinutes: 4997, historyIndex: 13)
        #expect(timing.step == .indexMovedBeforeTheMinuteCounter)
        #expect(timing.newestMinutesBeforeRead == 2)
        #expect(timing.newestSensorMinute == 4995)
    }

    /// Computed from LibreTransmitter's documented rule: the index lags. Age 4998: delay =
    /// (4995 mod 15) + 3 = 3, predicted 333 mod 32 = 13; index 12 → the record for minute 4995
    /// is not written yet, so the newest is 3 + 15 = 18 minutes old, at minute 4980.
    @Test func indexLags() throws {
        let timing = try LibreHistoryTiming(sensorAgeMinutes: 4998, historyIndex: 12)
        #expect(timing.step == .indexLagsTheMinuteCounter)
        #expect(timing.newestMinutesBeforeRead == 18)
        #expect(timing.newestSensorMinute == 4980)
    }

    /// The ring wraps: predicted 31 and index 0 is "moved first", predicted 0 and index 31 lags.
    /// Age 482: delay = (479 mod 15) + 3 = 17, predicted (479 div 15) mod 32 = 31. Age 483:
    /// delay 3, predicted 32 mod 32 = 0.
    @Test func stepsAcrossTheWrap() throws {
        #expect(try LibreHistoryTiming(sensorAgeMinutes: 482, historyIndex: 0).newestMinutesBeforeRead == 2)
        #expect(try LibreHistoryTiming(sensorAgeMinutes: 483, historyIndex: 31).newestMinutesBeforeRead == 18)
    }

    /// What the rule refuses: an index two or more slots off, and an index that moved first so
    /// early that the newest record would postdate the read (age 4993: delay 13, 13 − 15 = −2).
    @Test(arguments: [
        (4993, 13, LibreHistoryTimingError.newestAfterTheRead(minutes: 2, sensorAgeMinutes: 4993, historyIndex: 13)),
        (4993, 14, .indexOutOfStep(historyIndex: 14, predicted: 12, sensorAgeMinutes: 4993)),
        (4993, 10, .indexOutOfStep(historyIndex: 10, predicted: 12, sensorAgeMinutes: 4993)),
        (4993, 28, .indexOutOfStep(historyIndex: 28, predicted: 12, sensorAgeMinutes: 4993)),
    ])
    func undatable(age: Int, index: Int, error: LibreHistoryTimingError) {
        #expect(throws: error) { try LibreHistoryTiming(sensorAgeMinutes: age, historyIndex: index) }
    }
}
