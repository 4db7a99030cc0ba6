import Clocks
import Readings

/// The readings the appliance has already handed on for one transmitter, so that a reading
/// received again — the current one re-read at a reconnection, a backfill repeating what a
/// live session brought, a bridge resending its packet — reaches alarms, history and outputs
/// once (docs/reading-identity.md).
///
/// A reading with a `SensorStamp` is known by it. Sensor glucose without one is the same
/// reading as one of the same value measured within `Reading.sameReadingWindow`. Other
/// readings without a stamp (heart rate, a thermometer) carry nothing that could tell a repeat
/// from a new measurement of the same value, and are always new.
///
/// Memory is bounded: the newest `capacity` stamps are kept, enough for a day of Dexcom
/// backfill (288) or a meter's whole memory read again after a reset (a few hundred records)
/// several times over.
struct DeliveredReadings: Sendable {
    static let capacity = 2048
    static let unstampedCapacity = 64

    private struct Key: Hashable, Sendable {
        var kind: Reading.Kind
        var stamp: SensorStamp
    }

    private var stamps: Set<Key> = []
    private var order: [Key] = []
    /// Recent unstamped sensor glucose: value and time, newest last.
    private var unstamped: [(milligramsPerDeciliter: Double, time: Reading.Time)] = []

    /// True, and remembered, if `reading` was not handed on before.
    mutating func admit(_ reading: Reading) -> Bool {
        if let stamp = reading.sensorStamp {
            let key = Key(kind: reading.kind, stamp: stamp)
            guard stamps.insert(key).inserted else { return false }
            order.append(key)
            if order.count > Self.capacity {
                let evicted = order.prefix(Self.capacity / 2)
                stamps.subtract(evicted)
                order.removeFirst(evicted.count)
            }
            return true
        }
        guard case let .glucose(concentration, _) = reading.value else { return true }
        let value = concentration.milligramsPerDeciliter
        if unstamped.contains(where: { $0.milligramsPerDeciliter == value && Self.close($0.time, reading.time) }) { return false }
        unstamped.append((value, reading.time))
        if unstamped.count > Self.unstampedCapacity { unstamped.removeFirst() }
        return true
    }

    /// Within the window, on the same clock (a reading dated on the monotonic clock and one on
    /// the wall clock cannot be compared, and are not taken for one).
    private static func close(_ a: Reading.Time, _ b: Reading.Time) -> Bool {
        switch (a, b) {
        case let (.monotonic(x), .monotonic(y)): abs((x - y).seconds) <= Reading.sameReadingWindow.seconds
        case let (.wallClock(x), .wallClock(y)): abs((x - y).seconds) <= Reading.sameReadingWindow.seconds
        default: false
        }
    }
}
