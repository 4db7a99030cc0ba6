import Clocks

/// The buzzer envelopes by priority, in the manner of IEC 60601-1-8:2006+A1:2012 §6.3.3.1
/// Table 4 (pulse duration t_d, pulse spacing t_s, inter-burst interval; docs/peer-conventions.md
/// §Alarm sounds). All numbers in milliseconds; "gap" is line low.
///
/// - High: t_d 150 ms (standard 75–200), t_s 100 ms (50–125). Ten pulses in the standard's
///   grouping `xxx–xx ··· xxx–xx`: the gap after pulses 3 and 8 is 2·t_s + t_d = 350 ms, the
///   gap after pulse 5 is 1000 ms (0.35–1.30 s). Burst 3.8 s, then 5 s silence (2.5–15 s);
///   escalated: 2.5 s silence, the shortest the standard allows.
/// - Medium: t_d 200 ms, t_s 150 ms (both 125–250). Three pulses (0.9 s), then 10 s silence
///   (2.5–30 s); escalated: 5 s.
/// - Low: t_d 200 ms; one pulse then 20 s silence (the standard: > 15 s, or once); escalated:
///   two pulses 150 ms apart then 15 s silence.
///
/// Passive buzzers get a fundamental per priority inside the standard's 150–1000 Hz:
/// high 988 Hz (B5), medium 784 Hz (G5), low 523 Hz (C5) — higher is more urgent by ear.
public enum BuzzerRhythm {
    /// The shortest line-low time between two pulses, kept also when a pattern changes, so two
    /// pulses never merge into one long tone.
    public static let minimumGap: Duration = .milliseconds(100)

    public static func train(for priority: AlarmPriority, escalated: Bool) -> PulseTrain {
        switch priority {
        case .high:
            let pulse = 150, spacing = 100, split = 2 * spacing + pulse, pause = 1000
            let half = [pulse, spacing, pulse, spacing, pulse, split, pulse, spacing, pulse]
            return PulseTrain(onOffMilliseconds: half + [pause] + half + [escalated ? 2500 : 5000], repeats: true)
        case .medium:
            return PulseTrain(onOffMilliseconds: [200, 150, 200, 150, 200, escalated ? 5000 : 10000], repeats: true)
        case .low:
            return PulseTrain(onOffMilliseconds: escalated ? [200, 150, 200, 15000] : [200, 20000], repeats: true)
        }
    }

    /// The tone a passive buzzer plays for a priority (the GPIO layer PWMs or toggles at it).
    public static func toneHertz(for priority: AlarmPriority) -> Int {
        switch priority {
        case .high: 988
        case .medium: 784
        case .low: 523
        }
    }

    /// How insistent a buzzer pattern is: silence < low < low escalated < medium < … < high escalated.
    /// A change to a higher rank starts at once; anything else waits for a pulse boundary.
    public static func rank(of buzzer: AlarmPattern.Buzzer) -> Int {
        switch buzzer {
        case .silent: -1
        case let .bursts(priority, escalated, _): priority.rawValue * 2 + (escalated ? 1 : 0)
        }
    }
}
