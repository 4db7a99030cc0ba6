import Readings

/// A streaming encoder for one export format: the caller writes `header()`, then `encode` for
/// each reading as it pages them out of the history, then `footer()`. Nothing is buffered across
/// calls but a few bytes of state (is this the first element?), so a year of readings streams in
/// constant memory, on a board with little of it.
///
/// `encode` may return no bytes: an exporter skips readings its format cannot express
/// (Nightscout has no heart rate).
public protocol Exporter {
    mutating func header() -> [UInt8]
    mutating func encode(_ reading: RecordedReading) -> [UInt8]
    mutating func footer() -> [UInt8]
}

extension Exporter {
    /// The whole export of `readings` in memory: for tests and small exports only; callers with
    /// a year of data stream with header/encode/footer instead.
    public mutating func export<S: Sequence>(_ readings: S) -> [UInt8] where S.Element == RecordedReading {
        var out = header()
        for reading in readings { out += encode(reading) }
        out += footer()
        return out
    }
}
