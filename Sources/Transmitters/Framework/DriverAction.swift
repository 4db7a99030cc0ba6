import Bluetooth
import Clocks

/// What a driver asks the host to do. The host performs GATT actions in the order given, one
/// ATT request at a time (Core v5.4 Vol 3 Part F §3.3.2), and answers each with a `DriverInput`.
public enum DriverAction: Hashable, Sendable {
    case read(BluetoothUUID)
    case write(BluetoothUUID, [UInt8], withResponse: Bool)
    /// Write the Client Characteristic Configuration descriptor: 0x0001 notifications,
    /// 0x0002 indications (Core v5.4 Vol 3 Part G §3.3.3.3).
    case subscribe(BluetoothUUID, indications: Bool)
    /// Pair (or re-encrypt with a stored bond); answered by `encrypted` or `pairingFailed`.
    case requestPairing
    /// Drop the link; the app reconnects through the scanner, as after any disconnection.
    case disconnect(reason: String)
    /// The session did its work and the transmitter will have nothing new before `notBefore`
    /// (a Dexcom measures every 5 minutes): the app does not connect again until then, even to
    /// a transmitter that stays connectable, and a session that ends without this is a failure
    /// the app retries with a growing back-off (docs/reading-identity.md "Connection pacing").
    case nextSession(notBefore: MonotonicInstant)
    /// Hand an event up to the app (alarms, history, the status page).
    case emit(TransmitterEvent)
}
