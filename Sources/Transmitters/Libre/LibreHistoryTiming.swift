/// When the newest Libre 1 history record was measured, from the sensor's age and its history
/// index (docs/libre-history-timing.md).
///
/// A history record is written every 15 sensor minutes (15, 30, 45, …) and shows up in the FRAM
/// about 3 minutes later, so from the age alone the newest record is `delay` = ((age − 3) mod 15)
/// + 3 minutes old, and the index of the next slot to write should be ((age − 3) div 15) mod 32.
/// LibreTransmitter's `dateOfMostRecentHistoryValue` (LoopKit/LibreTransmitter, copied in
/// xdripswift) gives its own example — age 67, the newest record 7 minutes old — and warns that
/// "sometimes the history index is incremented earlier than the minutes counter"; in that case
/// its code dates the newest record `delay − 15` minutes before the read.
///
/// One rule follows, for both ways the index and the minute counter can be out of step:
///
/// | history index | the sensor | newest record, minutes before the read |
/// |---|---|---|
/// | the predicted one | wrote the record the age predicts | `delay` |
/// | predicted + 1 (mod 32) | moved the index before the minute counter | `delay − 15` |
/// | predicted − 1 (mod 32) | has not yet written the record the age predicts | `delay + 15` |
/// | anything else | — | not dated |
///
/// A newest record dated after the read (`delay − 15` below zero) is impossible and not dated
/// either. Every further record is 15 minutes older.
public struct LibreHistoryTiming: Hashable, Sendable {
    /// How the history index stands against the index the sensor's age predicts.
    public enum Step: Hashable, Sendable {
        case indexMatchesTheAge
        case indexMovedBeforeTheMinuteCounter
        case indexLagsTheMinuteCounter
    }

    public static let recordSpacingMinutes = 15

    public let step: Step
    /// Minutes between the newest history record and the read (0 or more).
    public let newestMinutesBeforeRead: Int
    /// The sensor minute the newest history record was measured at: a multiple of 15.
    public let newestSensorMinute: Int

    public init(sensorAgeMinutes age: Int, historyIndex: Int) throws(LibreHistoryTimingError) {
        let delay = floorMod(age - 3, 15) + 3
        let predicted = floorMod(floorDiv(age - 3, 15), LibreFRAM.historyCount)
        let step: Step
        let newest: Int
        switch historyIndex {
        case predicted:
            (step, newest) = (.indexMatchesTheAge, delay)
        case floorMod(predicted + 1, LibreFRAM.historyCount):
            (step, newest) = (.indexMovedBeforeTheMinuteCounter, delay - 15)
        case floorMod(predicted - 1, LibreFRAM.historyCount):
            (step, newest) = (.indexLagsTheMinuteCounter, delay + 15)
        default:
            throw .indexOutOfStep(historyIndex: historyIndex, predicted: predicted, sensorAgeMinutes: age)
        }
        guard newest >= 0 else { throw .newestAfterTheRead(minutes: -newest, sensorAgeMinutes: age, historyIndex: historyIndex) }
        self.step = step
        self.newestMinutesBeforeRead = newest
        self.newestSensorMinute = age - newest
    }

    /// Minutes between history record `k` (0 = newest) and the read.
    public func minutesBeforeRead(ofHistoryRecord k: Int) -> Int { newestMinutesBeforeRead + Self.recordSpacingMinutes * k }

    /// The sensor minute history record `k` was measured at; negative before the sensor started.
    public func sensorMinute(ofHistoryRecord k: Int) -> Int { newestSensorMinute - Self.recordSpacingMinutes * k }
}

/// Why a FRAM's history cannot be dated.
public enum LibreHistoryTimingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The index is more than one slot from the one the age predicts: no reading of the rule fits.
    case indexOutOfStep(historyIndex: Int, predicted: Int, sensorAgeMinutes: Int)
    /// The index moved first, but so early that the newest record would be younger than the read.
    case newestAfterTheRead(minutes: Int, sensorAgeMinutes: Int, historyIndex: Int)

    public var description: String {
        switch self {
        case let .indexOutOfStep(index, predicted, age):
            "Libre history index \(index) is out of step with sensor age \(age) min (which predicts \(predicted), "
                + "or one either side): its history cannot be dated"
        case let .newestAfterTheRead(minutes, age, index):
            "Libre history index \(index) at sensor age \(age) min would date the newest history record "
                + "\(minutes) min after the read: its history cannot be dated"
        }
    }
}

/// Floored modulo: the sensor's age minus 3 is negative in its first 3 minutes.
func floorMod(_ a: Int, _ b: Int) -> Int { ((a % b) + b) % b }
/// Floored division, consistent with `floorMod`.
func floorDiv(_ a: Int, _ b: Int) -> Int { (a - floorMod(a, b)) / b }
