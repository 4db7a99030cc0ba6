import Clocks
import Readings

/// A transmitter type's session state machine: sans-IO, fed GATT values by characteristic UUID
/// and the current monotonic time, returning actions for the host and events for the app.
///
/// Life cycle, driven by the app:
/// 1. The scanner finds a peer (`TransmitterMatcher`), the host connects and discovers
///    `profile.servicesToDiscover` (and encrypts first if `profile.security` is
///    `.encryptionRequired`).
/// 2. `start(_:at:)` with what discovery found. It begins a fresh session and forgets anything
///    from an earlier connection, so one driver value serves every reconnection.
/// 3. `receive(_:at:)` for every `DriverInput`; `handleDeadline(at:)` whenever `now` reaches
///    `nextDeadline`. Both may be called late; a driver acts on everything that is due.
/// 4. `receive(.disconnected)` ends the session; `nextDeadline` is then nil.
///
/// A driver never sees handles, HCI or ATT PDUs, never reads a clock, and never fails silently:
/// anything it cannot use becomes an event.
public protocol TransmitterDriver: Sendable {
    static var profile: TransmitterProfile { get }
    /// The configured name its readings are stamped with.
    var device: DeviceID { get }
    mutating func start(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> [DriverAction]
    mutating func receive(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction]
    mutating func handleDeadline(at now: MonotonicInstant) -> [DriverAction]
    var nextDeadline: MonotonicInstant? { get }
}

extension TransmitterDriver {
    /// The profile of this driver's type, reachable from an existential `any TransmitterDriver`.
    public var profile: TransmitterProfile { Self.profile }
}
