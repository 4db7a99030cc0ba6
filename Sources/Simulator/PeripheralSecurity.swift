import Bluetooth
import Clocks

/// What the peripheral's security manager asks its peripheral to do.
///
/// Mirrors the expected `SMP.Action` of the SMP target's responder, minus the central-only
/// `.startEncryption` (on LE only the central starts encryption, Core v5.4 Vol 3 Part H §2.4.4),
/// so wrapping `SMP.Responder` is a one-line switch.
public enum PeripheralSecurityOutput: Sendable, Equatable {
    /// An SMP PDU (code first) to send to the central on the SMP fixed channel, CID 0x0006.
    case send([UInt8])
    /// Pairing finished. The key is the one this peripheral will accept when the central later
    /// re-encrypts with (EDIV, Rand); Secure Connections keys use EDIV 0 and Rand 0
    /// (Vol 3 Part H §2.4.4.1). The peripheral remembers it for later connections.
    case paired(longTermKey: [UInt8], ediv: UInt16, rand: UInt64)
    /// Pairing failed with an SMP reason code (Vol 3 Part H §3.5.5).
    case failed(reason: UInt8)
}

/// The SMP side of a simulated peripheral: the responder role of the Security Manager
/// (Core v5.4 Vol 3 Part H). The SMP target's `SMP.Responder` is meant to conform to this;
/// tests use a small double.
///
/// One value serves one connection: `SimulatedPeripheral` makes a fresh one per connection
/// with its `SecurityFactory`, as `SMP.Responder.init(local:peer:configuration:random:)` does.
public protocol PeripheralSecurity: Sendable {
    /// An SMP PDU from the central (CID 0x0006 payload).
    mutating func receive(_ pdu: [UInt8], at now: MonotonicInstant) -> [PeripheralSecurityOutput]
    /// The link layer asks for the key of an LE_ENC_REQ (Vol 6 Part B §5.1.3.1, the
    /// LE Long Term Key Request event on a real peripheral): nil means "no such key", which the
    /// peripheral's link layer answers with PIN or Key Missing.
    mutating func longTermKey(ediv: UInt16, rand: UInt64) -> [UInt8]?
    /// Encryption on the link changed (after pairing: triggers key distribution).
    mutating func encryptionChanged(enabled: Bool, at now: MonotonicInstant) -> [PeripheralSecurityOutput]
    /// The peripheral's application wants security: send a Security Request (Vol 3 Part H §3.6.7).
    mutating func requestSecurity(at now: MonotonicInstant) -> [PeripheralSecurityOutput]
    /// SMP's 30 s transaction timer (Vol 3 Part H §3.4) or other timers.
    var nextDeadline: MonotonicInstant? { get }
    mutating func handleDeadline(at now: MonotonicInstant) -> [PeripheralSecurityOutput]
}

/// Makes the security side for one connection: (this peripheral's address, the central's address).
public typealias SecurityFactory = @Sendable (_ local: DeviceAddress, _ peer: DeviceAddress) -> any PeripheralSecurity
