import Bluetooth
import Clocks

/// Stretches of virtual time in which one peripheral is out of range of the radio: it stops
/// advertising, and a link it had is lost after the supervision timeout (the controller's
/// `vanish`). When a stretch ends it comes back and advertises again.
///
/// A peripheral model that also takes the device away by itself (a `SimulatedDexcom` sleeping
/// between its 5-minute sessions, which then calls `reappear`) stays away for the whole stretch:
/// call `apply` after that model's `service` and it is sent away again before it advertises.
public struct RangeOutage: Sendable {
    public let address: Address
    /// Sorted, not overlapping: `start ..< end` in virtual time.
    public let windows: [Range<MonotonicInstant>]
    /// True while this outage holds the peripheral away (so only this outage brings it back).
    public private(set) var isHolding = false
    private var lastApplied = MonotonicInstant(nanoseconds: .min)

    public init(address: Address, windows: [Range<MonotonicInstant>]) {
        self.address = address
        self.windows = windows.sorted { $0.lowerBound < $1.lowerBound }
    }

    public func isOutOfRange(at now: MonotonicInstant) -> Bool { windows.contains { $0.contains(now) } }

    /// The next start or end of a stretch after the last `apply`.
    public var nextDeadline: MonotonicInstant? {
        windows.lazy.flatMap { [$0.lowerBound, $0.upperBound] }.first { $0 > lastApplied }
    }

    /// Sends the peripheral away inside a stretch (again, if something brought it back), and
    /// brings it back once, when the stretch it was sent away for is over.
    public mutating func apply(to controller: inout SimulatedController, at now: MonotonicInstant) {
        lastApplied = max(lastApplied, now)
        let outOfRange = isOutOfRange(at: now)
        // Called every turn: touch the radio only inside a stretch or at the end of one.
        guard outOfRange || isHolding else { return }
        guard let peripheral = controller.radio[address] else { return }
        if outOfRange {
            if peripheral.isInRange { controller.vanish(address, at: now) }
            isHolding = true
        } else if isHolding {
            isHolding = false
            controller.radio[address]?.reappear(at: now)
        }
    }
}
