import Simulator

extension Nightscout {
    /// How long the uploader waits after a failure: 5 s doubling to 10 minutes, each wait
    /// drawn between half and all of that (docs/nightscout-upload.md "Back-off"). The jitter
    /// keeps a house of appliances that lost the same network from coming back in step; it
    /// comes from a `SplitMix64` seeded by the runner at start, so a test replays it exactly.
    public struct UploadBackOff: Sendable {
        public static let first = Duration.seconds(5)
        public static let longest = Duration.seconds(600)

        /// Failures in a row; 0 after a success.
        public private(set) var failures = 0
        var random: SplitMix64

        public init(seed: UInt64) { random = SplitMix64(seed: seed) }

        /// The wait after one more failure.
        public mutating func next() -> Duration {
            failures += 1
            let doublings = min(failures - 1, 10)
            let ceiling = min(Self.first * (1 << doublings), Self.longest)
            return jittered(ceiling)
        }

        public mutating func succeeded() { failures = 0 }

        private mutating func jittered(_ ceiling: Duration) -> Duration {
            let milliseconds = ceiling.nanosecondsClamped / 1_000_000
            let half = milliseconds / 2
            return .milliseconds(half + Int64(random.next() % UInt64(half + 1)))
        }
    }
}
