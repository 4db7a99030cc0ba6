import SMP

/// Pairing randomness that replays (SplitMix64 from a fixed seed), so a crash found by the
/// fuzzer reproduces byte for byte; `SMP.SystemRandom` would make every run different.
struct FuzzRandom: SMP.RandomSource {
    var state: UInt64 = 0xF022_5EED

    mutating func bytes(_ n: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(max(0, n))
        while out.count < n {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            for i in 0..<8 where out.count < n { out.append(UInt8(truncatingIfNeeded: z >> (8 * UInt64(i)))) }
        }
        return out
    }
}
