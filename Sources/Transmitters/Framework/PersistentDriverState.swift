/// State a driver must keep across restarts of the appliance, as short text values.
///
/// The glucose meter's last stored record sequence number is the example: without it, every
/// restart would ask the meter for all its records again. The app saves `persistentState`
/// whenever it changes and hands it back through `restore` before the first connection.
public protocol PersistentDriverState {
    var persistentState: [String: String] { get }
    mutating func restore(_ state: [String: String])
}

extension GlucoseMeterDriver: PersistentDriverState {
    /// `last-sequence` (the newest record's sequence number, as before) and `last-record` (its
    /// date on the meter's clock, the run of its `SensorStamp`).
    public var persistentState: [String: String] {
        var state: [String: String] = [:]
        if let lastSequenceNumber { state["last-sequence"] = String(lastSequenceNumber) }
        if let lastRecordRun { state["last-record"] = lastRecordRun }
        return state
    }

    /// A state that names the last record's date was saved by a driver that follows resets:
    /// it is what the meter last said, and wins even when it is below a configured
    /// `last-sequence` (the meter's numbers restarted). A state with the sequence number alone
    /// (saved before resets were followed) only moves the start forward: a configured
    /// `last-sequence` newer than it wins, as it always did.
    public mutating func restore(_ state: [String: String]) {
        guard let saved = state["last-sequence"].flatMap(UInt16.init) else { return }
        if let run = state["last-record"] {
            restoreLastRecord(sequence: saved, run: run)
        } else {
            restoreLastRecord(sequence: max(saved, lastSequenceNumber ?? 0), run: nil)
        }
    }
}

extension CGMServiceDriver: PersistentDriverState {
    public var persistentState: [String: String] {
        lastTimeOffsetMinutes.map { ["last-time-offset": String($0)] } ?? [:]
    }

    public mutating func restore(_ state: [String: String]) {
        guard let saved = state["last-time-offset"].flatMap(UInt16.init) else { return }
        restoreLastTimeOffset(max(saved, lastTimeOffsetMinutes ?? 0))
    }
}
