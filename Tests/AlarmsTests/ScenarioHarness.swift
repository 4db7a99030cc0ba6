import Clocks
import Readings
@testable import Alarms

/// The instant `m` minutes after the start of a scenario.
func minute(_ m: Double) -> MonotonicInstant { .zero + .milliseconds(Int64((m * 60_000).rounded())) }

/// Drives an `AlarmEngine` on a virtual clock: before each input it jumps from deadline to
/// deadline (never sleeping), and it keeps every event as a readable line
/// `"<minute> <alarm> <change>"` so a scenario can assert its whole timeline.
struct ScenarioHarness {
    var engine: AlarmEngine
    var now = MonotonicInstant.zero
    var timeline: [String] = []
    var device: DeviceID = "dexcom"

    init(_ configuration: AlarmConfiguration = AlarmConfiguration(watchedDevices: ["dexcom"]),
         restoring state: AlarmEngine.State = AlarmEngine.State()) {
        engine = AlarmEngine(configuration: configuration, now: .zero, restoring: state)
    }

    /// Handles every deadline up to and including minute `m`, then stands at `m`.
    mutating func advance(toMinute m: Double) {
        let target = minute(m)
        var guardCount = 0
        while let deadline = engine.nextDeadline, deadline <= target {
            now = max(now, deadline)
            engine.handleDeadline(at: now)
            record()
            guardCount += 1
            precondition(guardCount < 10_000, "deadline did not move on")
        }
        now = max(now, target)
    }

    mutating func send(_ input: AlarmEngine.Input, atMinute m: Double) {
        advance(toMinute: m)
        engine.receive(input, at: now)
        record()
    }

    /// A glucose reading measured `ageMinutes` before it arrives at minute `m`.
    mutating func glucose(_ mgdL: Double, atMinute m: Double, ageMinutes: Double = 0,
                          wallClock: WallClockTime? = nil) {
        send(.glucose(AlarmEngine.GlucoseSample(
            device: device, concentration: GlucoseConcentration(milligramsPerDeciliter: mgdL), trend: nil,
            measuredAt: minute(m - ageMinutes), wallClockTime: wallClock)), atMinute: m)
    }

    mutating func record() {
        for event in engine.takeEvents() {
            timeline.append("\(Self.minutes(event.time)) \(event.kind.name) \(Self.describe(event.change))")
        }
    }

    static func minutes(_ t: MonotonicInstant) -> String {
        let ms = t.nanoseconds / 1_000_000
        return ms % 60_000 == 0 ? "\(ms / 60_000)" : "\(Double(ms) / 60_000)"
    }

    static func describe(_ change: AlarmEvent.Change) -> String {
        switch change {
        case let .raised(priority): "raised \(priority)"
        case let .snoozed(until): "snoozed until \(minutes(until))"
        case let .acknowledged(until): "acknowledged until \(minutes(until))"
        case .escalated: "escalated"
        case .cleared: "cleared"
        case .reRaised: "re-raised"
        }
    }
}
