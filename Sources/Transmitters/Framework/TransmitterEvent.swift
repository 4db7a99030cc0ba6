import Bluetooth
import Clocks
import Readings

/// What the transmitter layer tells the rest of Vigil. Drivers emit all of these except
/// `bluetoothStateChanged`, which the app emits on the same channel, so alarms and the status
/// page watch one stream per transmitter. `connected` means connected, discovered and
/// compatible: the driver emits it from `start` only when the peer has what the type needs,
/// and it is the moment the app remembers the address (`RememberedTransmitters.rememberIfNew`).
public enum TransmitterEvent: Hashable, Sendable, CustomStringConvertible {
    case connected
    case disconnected(reason: String)
    case bluetoothStateChanged(BluetoothState)
    case reading(Reading)
    /// Only the fields just learned are set; merge with `TransmitterInfo.merging(_:)`.
    case info(TransmitterInfo)
    /// The transmitter wants an encrypted link; the driver has asked the host to pair.
    case needsPairing
    case paired
    case pairingFailed(reason: String)
    /// A sensor bridge (MiaoMiao, Bubble) reports a new sensor, or none at all.
    case newSensorDetected
    case sensorNotDetected
    /// No reading arrived for `duration` after `since`; the driver asked to disconnect so that
    /// the app reconnects. Alarms use this for "signal loss".
    case noData(since: MonotonicInstant, duration: Duration)
    /// The peer lacks something the profile requires; the driver asked to disconnect.
    case incompatible(reason: String)
    /// A value arrived but could not be decoded. Logged and counted, never dropped silently.
    case malformedValue(BluetoothUUID, reason: String)
    case operationFailed(GATTOperation, OperationFailure)
    /// What became of a fingerstick offered to this transmitter as a calibration point.
    case calibration(CalibrationReport)

    public var description: String {
        switch self {
        case .connected: "connected"
        case let .disconnected(reason): "disconnected: \(reason)"
        case let .bluetoothStateChanged(state): "bluetooth \(state)"
        case let .reading(reading): "reading \(reading)"
        case let .info(info): "info \(info)"
        case .needsPairing: "needs pairing"
        case .paired: "paired"
        case let .pairingFailed(reason): "pairing failed: \(reason)"
        case .newSensorDetected: "new sensor detected"
        case .sensorNotDetected: "sensor not detected"
        case let .noData(since, duration): "no data for \(duration.seconds) s since \(since)"
        case let .incompatible(reason): "incompatible: \(reason)"
        case let .malformedValue(uuid, reason): "malformed value on \(uuid): \(reason)"
        case let .operationFailed(operation, failure): "\(operation) failed: \(failure)"
        case let .calibration(report): "\(report)"
        }
    }
}

/// The local Bluetooth controller's state, as the app sees it.
public enum BluetoothState: Hashable, Sendable, CustomStringConvertible {
    case poweredOn
    case poweredOff
    case unavailable(reason: String)

    public var description: String {
        switch self {
        case .poweredOn: "on"
        case .poweredOff: "off"
        case let .unavailable(reason): "unavailable (\(reason))"
        }
    }
}

/// A fingerstick offered to a transmitter as a calibration point, and what became of it: the
/// transmitter took it, or it was not used and why. Never dropped without one of these.
public struct CalibrationReport: Hashable, Sendable, CustomStringConvertible {
    public enum Outcome: Hashable, Sendable {
        /// Taken: by the transmitter (Dexcom 0x35 accepted) or by the driver's own calibration.
        case accepted(detail: String)
        /// Not used, with the reason (out of range, too old, refused by the transmitter, ...).
        case notUsed(reason: String)
    }

    public var reference: GlucoseConcentration
    /// When the blood was taken.
    public var takenAt: MonotonicInstant
    public var outcome: Outcome

    public init(reference: GlucoseConcentration, takenAt: MonotonicInstant, outcome: Outcome) {
        self.reference = reference
        self.takenAt = takenAt
        self.outcome = outcome
    }

    public var isAccepted: Bool { if case .accepted = outcome { true } else { false } }

    public var description: String {
        switch outcome {
        case let .accepted(detail): "calibration \(reference) accepted\(detail.isEmpty ? "" : ": \(detail)")"
        case let .notUsed(reason): "calibration \(reference) not used: \(reason)"
        }
    }
}
