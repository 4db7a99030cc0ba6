import Bluetooth
import Clocks
import SMP

/// The simulated peripherals' Security Manager: the SMP target's responder behind the
/// simulator's `PeripheralSecurity` interface, so pairing in simulation runs the same
/// spec-following code paths (LE Secure Connections and legacy Just Works) as a real peer.
public struct SMPPeripheralSecurity: PeripheralSecurity {
    private var responder: SMP.Responder

    public init(local: DeviceAddress, peer: DeviceAddress, configuration: SMP.Configuration = SMP.Configuration(), random: some SMP.RandomSource = SMP.SystemRandom()) {
        responder = SMP.Responder(local: local, peer: peer, configuration: configuration, random: random)
    }

    /// A factory for `SimulatedPeripheral`: a fresh responder per connection.
    public static func factory(configuration: SMP.Configuration = SMP.Configuration()) -> SecurityFactory {
        { local, peer in SMPPeripheralSecurity(local: local, peer: peer, configuration: configuration) }
    }

    public mutating func receive(_ pdu: [UInt8], at now: MonotonicInstant) -> [PeripheralSecurityOutput] {
        Self.map(responder.receive(pdu, at: now))
    }

    public mutating func longTermKey(ediv: UInt16, rand: UInt64) -> [UInt8]? {
        // The responder's LTK lookup does not depend on time; its timer is driven separately.
        for case .provideLongTermKey(let key) in responder.longTermKeyRequested(ediv: ediv, rand: rand, at: .zero) {
            return key
        }
        return nil
    }

    public mutating func encryptionChanged(enabled: Bool, at now: MonotonicInstant) -> [PeripheralSecurityOutput] {
        Self.map(responder.encryptionChanged(enabled: enabled, at: now))
    }

    public mutating func requestSecurity(at now: MonotonicInstant) -> [PeripheralSecurityOutput] {
        Self.map(responder.requestSecurity(at: now))
    }

    public var nextDeadline: MonotonicInstant? { responder.nextDeadline }

    public mutating func handleDeadline(at now: MonotonicInstant) -> [PeripheralSecurityOutput] {
        Self.map(responder.handleDeadline(at: now))
    }

    static func map(_ actions: [SMP.Responder.Action]) -> [PeripheralSecurityOutput] {
        actions.compactMap { action in
            switch action {
            case .send(let pdu): .send(pdu)
            case .paired(let bond): .paired(longTermKey: bond.longTermKey, ediv: bond.ediv, rand: bond.rand)
            case .failed(let failure): .failed(reason: failure.reason?.rawValue ?? SMP.PairingFailed.Reason.unspecifiedReason.rawValue)
            case .provideLongTermKey: nil
            }
        }
    }
}
