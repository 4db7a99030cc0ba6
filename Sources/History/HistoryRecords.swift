import Clocks
import Readings

/// A device the appliance knows, and the state it remembers for it (bond, session, sensor
/// start: opaque text the owning driver writes and reads back).
public struct DeviceRecord: Hashable, Sendable {
    public var id: DeviceID
    public var type: String
    public var address: String?
    public var state: String?

    public init(id: DeviceID, type: String, address: String? = nil, state: String? = nil) {
        self.id = id
        self.type = type
        self.address = address
        self.state = state
    }
}

/// Row counts for `vigil status` and the serial STATUS line.
public struct HistoryCounts: Equatable, Sendable {
    public var readings: [Reading.Kind: Int]
    public var alarmEvents: Int
    public var calibrations: Int
    public var devices: Int
    /// Rows appended but not yet committed (non-zero while storage is failing).
    public var pending: Int
    /// Rows dropped from the pending buffer since open because storage failed for too long.
    public var dropped: Int
    /// Bytes in use in the main file (pages minus free pages, times the page size).
    public var usedBytes: Int

    public var totalReadings: Int { readings.values.reduce(0, +) }
}
