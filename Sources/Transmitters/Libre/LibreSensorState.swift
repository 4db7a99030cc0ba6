/// The sensor state byte at FRAM offset 4 (docs/protocols/libre-fram.md §Sensor state:
/// LibreTransmitter SensorState.swift *code*, xdripswift LibreSensorState.swift, xDrip
/// LibreUtils.java `isSensorReady`).
///
/// LibreTransmitter's doc comment calls 0x04 "unknown" and 0x05 "expired"; its own code, and
/// the other two projects, say 0x04 expired and 0x05 shutdown. We follow the code.
public enum LibreSensorState: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case notYetStarted = 0x01
    /// Warm-up, about 60 minutes after insertion.
    case starting = 0x02
    /// Normal operation for 14 days and 12 hours.
    case ready = 0x03
    /// A further 12 hours during which the sensor repeats its last value (xDrip comment).
    case expired = 0x04
    case shutdown = 0x05
    case failure = 0x06

    /// Only a ready sensor gives glucose values worth showing: warm-up values are unsettled,
    /// and an expired one repeats a stale value.
    public var givesGlucose: Bool { self == .ready }

    public var description: String {
        switch self {
        case .notYetStarted: "not yet started"
        case .starting: "warming up"
        case .ready: "ready"
        case .expired: "expired"
        case .shutdown: "shut down"
        case .failure: "failed"
        }
    }
}
