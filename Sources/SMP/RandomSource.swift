extension SMP {
    /// Where pairing randomness comes from (Mrand, Na, private keys, distributed keys).
    ///
    /// A protocol rather than a global so tests can replay a pairing byte for byte; production
    /// code uses `SystemRandom`.
    public protocol RandomSource: Sendable {
        mutating func bytes(_ n: Int) -> [UInt8]
    }

    /// Cryptographically secure randomness from the standard library's
    /// `SystemRandomNumberGenerator` (getrandom(2) on Linux).
    public struct SystemRandom: RandomSource {
        public init() {}

        public mutating func bytes(_ n: Int) -> [UInt8] {
            var generator = SystemRandomNumberGenerator()
            return (0..<max(0, n)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        }
    }
}
