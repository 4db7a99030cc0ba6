/// When the newest Libre 1 history record was measured: the two readings of LibreTransmitter's
/// `dateOfMostRecentHistoryValue` (copied in xdripswift), protocols.md §3 "Timing".
///
/// Both start from delay = ((age − 3) mod 15) + 3 minutes. If ((age − 3) / 15) mod 32 equals
/// the history index, the newest history record is `delay` minutes old. Otherwise the sensor
/// has not yet written the record the age predicts, and:
/// - the source's **comment** says the newest is 15 minutes older: `delay + 15`;
/// - the source's **code** computes `delay − 15`, which is 12 minutes in the *future* to 2
///   minutes ago.
///
/// Vigil uses the comment (`.comment`): a lagging index means an older record, and a glucose
/// value dated in the future would mislead alarms and history. In the matching case (the xDrip
/// dump's, and the only case xDrip itself handles: minute counter ((age − 3) / 15) × 15) both
/// readings agree. Every further record is 15 minutes older.
public enum LibreHistoryTiming: Hashable, Sendable, CaseIterable {
    case comment
    case code

    /// Minutes between history record `k` (0 = newest) and the read; negative means "after the
    /// read", which only `.code` can produce.
    public func minutesBeforeRead(ofHistoryRecord k: Int, sensorAgeMinutes age: Int, historyIndex: Int) -> Int {
        let delay = floorMod(age - 3, 15) + 3
        let predictedIndex = floorMod(floorDiv(age - 3, 15), 32)
        let newest: Int
        if predictedIndex == historyIndex {
            newest = delay
        } else {
            switch self {
            case .comment: newest = delay + 15
            case .code: newest = delay - 15
            }
        }
        return newest + 15 * k
    }
}

/// Floored modulo: the sensor's age minus 3 is negative in its first 3 minutes.
func floorMod(_ a: Int, _ b: Int) -> Int { ((a % b) + b) % b }
/// Floored division, consistent with `floorMod`.
func floorDiv(_ a: Int, _ b: Int) -> Int { (a - floorMod(a, b)) / b }
