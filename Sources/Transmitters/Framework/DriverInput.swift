import Readings
import Clocks
import Bluetooth

/// What the host tells a driver after `start`: values and completions for the actions it asked
/// for, and link events. Every `read`, `write` and `subscribe` action is answered by exactly one
/// completion (`value` with origin `.read`, `writeCompleted`, `subscribed` or `operationFailed`)
/// unless the link drops first, in which case `disconnected` ends the session. The failure names
/// the operation, not just the characteristic, because a driver may both read and subscribe to
/// one characteristic (Battery Level).
public enum DriverInput: Hashable, Sendable {
    case value(BluetoothUUID, [UInt8], origin: ValueOrigin)
    case writeCompleted(BluetoothUUID)
    /// The Client Characteristic Configuration descriptor was written (Core v5.4 Vol 3 Part G §3.3.3.3).
    case subscribed(BluetoothUUID)
    case operationFailed(GATTOperation, OperationFailure)
    /// The link is now encrypted (after pairing, or re-encryption with a stored bond).
    case encrypted
    /// Pairing or encryption failed; the string is for the log.
    case pairingFailed(reason: String)
    case disconnected(reason: String)
    /// A reference glucose (a fingerstick from a meter) for drivers that calibrate raw values;
    /// `takenAt` is when the blood was measured. Drivers that do not calibrate ignore it.
    case calibration(GlucoseConcentration, takenAt: MonotonicInstant)
}

/// How a characteristic value reached the host (Core v5.4 Vol 3 Part G §4.8, §4.10, §4.11).
public enum ValueOrigin: Hashable, Sendable {
    case read
    case notification
    /// The host has already sent the Handle Value Confirmation.
    case indication
}

/// One GATT operation a driver asked for, as named in a failure.
public enum GATTOperation: Hashable, Sendable, CustomStringConvertible {
    case read(BluetoothUUID)
    case write(BluetoothUUID)
    case subscribe(BluetoothUUID)

    public var characteristic: BluetoothUUID {
        switch self {
        case let .read(uuid), let .write(uuid), let .subscribe(uuid): uuid
        }
    }

    public var description: String {
        switch self {
        case let .read(uuid): "read \(uuid)"
        case let .write(uuid): "write \(uuid)"
        case let .subscribe(uuid): "subscribe \(uuid)"
        }
    }
}
