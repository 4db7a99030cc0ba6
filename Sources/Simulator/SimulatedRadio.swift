import Bluetooth
import Clocks

/// The simulated air: every peripheral in range, each with its own RSSI and advertising
/// schedule, on the caller's virtual clock. Several may be connected at once.
public struct SimulatedRadio: Sendable {
    public var peripherals: [SimulatedPeripheral] = []

    public init(peripherals: [SimulatedPeripheral] = []) { self.peripherals = peripherals }

    public mutating func add(_ peripheral: SimulatedPeripheral) { peripherals.append(peripheral) }

    /// The peripheral with this address, to inspect or to flip its toggles in place.
    public subscript(address: Address) -> SimulatedPeripheral? {
        get { peripherals.first { $0.address.address == address } }
        set {
            guard let i = peripherals.firstIndex(where: { $0.address.address == address }) else { return }
            if let newValue { peripherals[i] = newValue } else { peripherals.remove(at: i) }
        }
    }

    func index(of address: DeviceAddress) -> Int? {
        peripherals.firstIndex { $0.address.address == address.address && $0.address.type.isRandom == address.type.isRandom }
    }

    /// The earliest advertising event at or after `t` over all advertising peripherals.
    func nextAdvertisingEvent(atOrAfter t: MonotonicInstant) -> (peripheral: Int, index: UInt64, time: MonotonicInstant)? {
        var best: (Int, UInt64, MonotonicInstant)?
        for (i, p) in peripherals.enumerated() where p.isAdvertising {
            let (index, time) = p.advertising.firstEvent(atOrAfter: t, anchor: p.advertisingAnchor)
            if best.map({ time < $0.2 }) ?? true { best = (i, index, time) }
        }
        return best
    }
}
