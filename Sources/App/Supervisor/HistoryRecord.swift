import Alarms
import Clocks
import Readings

/// Rows for the history, as the supervisor hands them to the runner to append (and keeps
/// them while the history is not open).
public enum HistoryRecord: Hashable, Sendable {
    /// `receivedAt` nil: dated by the transmitter's own clock, never re-dated.
    case readings([RecordedReading], receivedAt: MonotonicInstant?)
    case alarms([AlarmEvent], monotonicNow: MonotonicInstant, wallNow: WallClockTime)
    /// A fingerstick a transmitter took as its calibration, dated when the blood was taken.
    case calibration(device: DeviceID, glucose: GlucoseConcentration, wallTime: WallClockTime, receivedAt: MonotonicInstant)

    public var rows: Int {
        switch self {
        case .readings(let readings, _): readings.count
        case .alarms(let events, _, _): events.count
        case .calibration: 1
        }
    }
}

/// How the history was found when it opened.
public enum HistoryOpenOutcome: Hashable, Sendable {
    /// An existing history passed its check (and was migrated from `fromVersion` if older).
    case opened(fromVersion: Int)
    case created
    /// The file was corrupt: moved to `movedTo`, and a fresh one started (a loss).
    case recreatedAfterCorruption(movedTo: String, reason: String)
}
