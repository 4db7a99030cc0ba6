import Readings

/// Heart rate out of range, for a heart-rate strap worn at night.
///
/// Defaults: low 40 bpm and high 150 bpm are the lowest and highest choices the Apple Watch
/// offers for its low and high heart rate notifications (support.apple.com HT208931: 40/45/50 and
/// 100–150, each while the wearer seems inactive for 10 minutes). Vigil cannot tell activity, so
/// it takes the least sensitive of each; 180 would be an exercising rate, far too late for a
/// sleeper. One minute of every reading out of range (not Apple's 10) because a person in bed
/// cannot be assumed to be watching a screen, and a minute already ignores any single glitch.
public struct HeartRateLimits: Hashable, Sendable {
    public var low: BeatsPerMinute?
    public var high: BeatsPerMinute?
    /// Every reading with skin contact must be out of range for this long before it sounds.
    public var sustainedFor: Duration

    /// A raised alarm clears only once the rate is this far back inside the limit.
    public static let clearingMargin: UInt16 = 5

    public init(low: BeatsPerMinute? = BeatsPerMinute(40), high: BeatsPerMinute? = BeatsPerMinute(150),
                sustainedFor: Duration = .seconds(60)) {
        self.low = low
        self.high = high
        self.sustainedFor = sustainedFor
    }
}
