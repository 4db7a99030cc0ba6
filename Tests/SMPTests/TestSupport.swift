import Bluetooth
import Wire
@testable import SMP

/// A value written MSB-first in the Core spec's sample data, turned into wire order.
func spec(_ hex: String) -> [UInt8] { [UInt8](hex: hex).reversed() }

/// Deterministic randomness (SplitMix64), so every pairing in the tests is reproducible.
struct SeededRandom: SMP.RandomSource {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) } }
}

/// A source that always returns the same bytes: for invalid-key and fixed-value cases.
struct ConstantRandom: SMP.RandomSource {
    var byte: UInt8
    mutating func bytes(_ n: Int) -> [UInt8] { [UInt8](repeating: byte, count: n) }
}

let centralAddress = DeviceAddress(Address("C0:00:00:00:00:01")!, type: .random)
let peripheralAddress = DeviceAddress(Address("00:1B:DC:12:34:56")!, type: .public)
