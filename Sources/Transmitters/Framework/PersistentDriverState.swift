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
    public var persistentState: [String: String] {
        lastSequenceNumber.map { ["last-sequence": String($0)] } ?? [:]
    }

    /// A saved sequence number only moves the start forward: a configured `last-sequence`
    /// newer than the saved one wins.
    public mutating func restore(_ state: [String: String]) {
        guard let saved = state["last-sequence"].flatMap(UInt16.init) else { return }
        restoreLastSequenceNumber(max(saved, lastSequenceNumber ?? 0))
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
