import Alarms
import Bluetooth
import Clocks
import Readings
import Transmitters

/// What the appliance reports: a transmitter's events with the device they concern, plus the
/// appliance's own state. Alarms, history and `--events-json` consume this one stream.
public enum ApplianceEvent: Sendable, Equatable {
    case transmitter(DeviceID, peer: DeviceAddress?, TransmitterEvent)
    /// Readings a driver produced in one step (one notification), kept together so a heart-rate
    /// measurement's rate, RR intervals and energy stay one record.
    case readings(DeviceID, peer: DeviceAddress?, [Reading])
    case connecting(DeviceID, peer: DeviceAddress)
    case encrypted(DeviceID, peer: DeviceAddress, bonded: Bool)
    case paired(DeviceID, peer: DeviceAddress, secureConnections: Bool)
    case rememberedAddress(DeviceID, DeviceAddress)
    /// Values the peer sent on attributes that are no characteristic of its database (a
    /// confused or hostile peripheral): dropped, and said at most once a minute per device
    /// (`TransmitterSlot.IgnoredValues`) so a flood does not flood the log. `count` is how many
    /// since the last report; `attribute` the latest one's handle.
    case ignoredValues(DeviceID, peer: DeviceAddress?, attribute: UInt16, count: Int)
    /// A driver's state to keep across restarts changed (see `PersistentDriverState`).
    case driverState(DeviceID, [String: String])
    case bluetooth(BluetoothState)
    /// The alarm engine raised, snoozed, acknowledged, escalated, re-raised or cleared an alarm.
    case alarm(AlarmEvent)
}
