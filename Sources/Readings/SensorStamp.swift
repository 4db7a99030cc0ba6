/// What the sensor itself calls a reading: a count on the transmitter's own clock or counter,
/// within one run of that counter. It is a reading's identity (docs/reading-identity.md):
/// the same stamp received again — after a reconnection, a restart, in a backfill, from a
/// replayed capture, or overheard beside another app — is the same reading, however its
/// wall-clock estimate moved.
///
/// | source | `count` | `run` |
/// |---|---|---|
/// | Dexcom G5/G6 | dex time: seconds since the transmitter was activated | the transmitter ID |
/// | Libre 1 (MiaoMiao, Bubble) | sensor minutes: the sensor's age when it measured | the sensor's serial (UID) |
/// | glucose meter | the record's sequence number | the record's own date on the meter's clock |
/// | CGM Service sensor | minutes since the session started (Time Offset) | the session's start time |
///
/// The run keeps counters that restart apart: a new transmitter counts dex time from 0 again,
/// a new sensor its minutes, a reset meter its sequence numbers. Without it, the first readings
/// of a new sensor would be taken for old ones and dropped.
public struct SensorStamp: Hashable, Sendable, CustomStringConvertible {
    /// Which run of the counter (see the table); the empty string when a source has only one.
    public var run: String
    /// The count on the sensor's own clock or counter, in the unit the table gives.
    public var count: Int64

    public init(run: String, count: Int64) {
        self.run = run
        self.count = count
    }

    public var description: String { run.isEmpty ? "#\(count)" : "\(run)#\(count)" }
}
