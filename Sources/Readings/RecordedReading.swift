import Clocks

/// One reading as the history keeps it and exports it: what was measured, by which
/// device, when on the wall clock (already re-dated if the clock jumped), on the transmitter's
/// own clock or counter where it has one, and how it arrived. The history, the exporters, the report and
/// the serial protocol all speak this type, so none depends on SQLite.
public struct RecordedReading: Hashable, Sendable, CustomStringConvertible {
    /// How the reading reached Vigil: as it was measured, later from the transmitter's memory,
    /// or from a server a phone uploads to (a follower, docs/followers.md).
    public enum Origin: String, Hashable, Sendable, CaseIterable {
        case live
        case backfill
        case followed

        /// The history's `origin` column: 0 live, 1 backfill, 2 followed.
        public var storedCode: Int64 {
            switch self {
            case .live: 0
            case .backfill: 1
            case .followed: 2
            }
        }

        /// A code a later Vigil wrote and this one does not know reads as live.
        public init(storedCode: Int64) {
            self = Self.allCases.first { $0.storedCode == storedCode } ?? .live
        }
    }

    public var device: DeviceID
    public var value: Reading.Value
    /// When it was measured.
    public var wallTime: WallClockTime
    /// The transmitter's own name for the reading, when it has one (`SensorStamp`): the key
    /// that makes reconnections, restarts, backfill and replays never duplicate a reading.
    public var sensorStamp: SensorStamp?
    public var origin: Origin

    public init(device: DeviceID, value: Reading.Value, wallTime: WallClockTime, sensorStamp: SensorStamp? = nil, origin: Origin = .live) {
        self.device = device
        self.value = value
        self.wallTime = wallTime
        self.sensorStamp = sensorStamp
        self.origin = origin
    }

    public var kind: Reading.Kind { value.kind }

    public var description: String { "\(wallTime) \(device.rawValue) \(value) (\(origin.rawValue))" }
}
