import Bluetooth
import Clocks

/// What the peripheral's security manager asks its peripheral to do.
///
/// The subset of the SMP target's `SMP.Action` a peripheral acts on: `.startEncryption` has no
/// counterpart because on LE only the central starts encryption (Core v5.4 Vol 3 Part H §2.4.4).
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
/// (Core v5.4 Vol 3 Part H).
///
/// Shaped after the expected `SMP.Responder` API so that it conforms with an extension: its
/// own `receive`, `encryptionChanged`, `handleDeadline` and `nextDeadline` satisfy the
/// requirements with `Action = SMP.Action`, and the extension adds `longTermKey`,
/// `requestSecurity` and `output(of:)`, which maps an `SMP.Action` to what the peripheral does
/// (nil for actions it ignores). A test double with `Action = PeripheralSecurityOutput` needs
/// no mapping.
///
/// One value serves one connection: `SimulatedPeripheral` makes a fresh one per connection
/// with its `SecurityFactory`, as `SMP.Responder.init(local:peer:configuration:random:)` does.
public protocol PeripheralSecurity: Sendable {
    associatedtype Action
    /// An SMP PDU from the central (CID 0x0006 payload).
    mutating func receive(_ pdu: [UInt8], at now: MonotonicInstant) -> [Action]
    /// The link layer asks for the key of an LL_ENC_REQ (Vol 6 Part B §5.1.3.1; the LE Long
    /// Term Key Request event on a real peripheral). Nil means "no such key", which the
    /// peripheral's link layer answers with PIN or Key Missing.
    mutating func longTermKey(ediv: UInt16, rand: UInt64) -> [UInt8]?
    /// Encryption on the link changed (after pairing this starts key distribution).
    mutating func encryptionChanged(enabled: Bool, at now: MonotonicInstant) -> [Action]
    /// The peripheral's application wants security: a Security Request (Vol 3 Part H §3.6.7).
    mutating func requestSecurity(at now: MonotonicInstant) -> [Action]
    /// SMP's 30 s transaction timer (Vol 3 Part H §3.4) and any other timer.
    var nextDeadline: MonotonicInstant? { get }
    mutating func handleDeadline(at now: MonotonicInstant) -> [Action]
    /// What the peripheral should do for `action`; nil when it concerns only the central.
    static func output(of action: Action) -> PeripheralSecurityOutput?
}

extension PeripheralSecurity where Action == PeripheralSecurityOutput {
    public static func output(of action: Action) -> PeripheralSecurityOutput? { action }
}

// Entry points that do not mention `Action`, so the peripheral can call them on an
// `any PeripheralSecurity`.
extension PeripheralSecurity {
    mutating func receiveOutputs(_ pdu: [UInt8], at now: MonotonicInstant) -> [PeripheralSecurityOutput] {
        receive(pdu, at: now).compactMap(Self.output(of:))
    }
    mutating func encryptionChangedOutputs(enabled: Bool, at now: MonotonicInstant) -> [PeripheralSecurityOutput] {
        encryptionChanged(enabled: enabled, at: now).compactMap(Self.output(of:))
    }
    mutating func requestSecurityOutputs(at now: MonotonicInstant) -> [PeripheralSecurityOutput] {
        requestSecurity(at: now).compactMap(Self.output(of:))
    }
    mutating func handleDeadlineOutputs(at now: MonotonicInstant) -> [PeripheralSecurityOutput] {
        handleDeadline(at: now).compactMap(Self.output(of:))
    }
}

/// Makes the security side for one connection: (this peripheral's address, the central's address).
public typealias SecurityFactory = @Sendable (_ local: DeviceAddress, _ peer: DeviceAddress) -> any PeripheralSecurity
