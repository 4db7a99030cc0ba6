import Alarms
import Readings
import Testing
@testable import App

@Suite struct NightscoutStatusTests {
    func mgdL(_ value: Double) -> GlucoseConcentration { GlucoseConcentration(milligramsPerDeciliter: value) }

    @Test func thresholdsAreVigilsAlarmsInNightscoutsFourNames() {
        #expect(Nightscout.Status.thresholds(.standard).rendered == #"{"bgHigh":300,"bgTargetTop":250,"bgTargetBottom":70,"bgLow":55}"#)
        // Turned-off alarms take their neighbour's value; with both highs off, Nightscout's defaults.
        let t = GlucoseThresholds(urgentLow: mgdL(60), low: nil, high: nil, urgentHigh: mgdL(280.4))
        #expect(Nightscout.Status.thresholds(t).rendered == #"{"bgHigh":280,"bgTargetTop":280,"bgTargetBottom":60,"bgLow":60}"#)
        let none = GlucoseThresholds(high: nil, urgentHigh: nil)
        #expect(Nightscout.Status.thresholds(none).rendered == #"{"bgHigh":260,"bgTargetTop":180,"bgTargetBottom":70,"bgLow":55}"#)
    }

    @Test func unitsAreNightscoutsWords() {
        var snapshot = NightscoutFixtures.snapshot
        snapshot.units = .millimolesPerLiter
        let settings = Nightscout.Status.settings(snapshot, configuration: NightscoutFixtures.api.configuration).rendered
        #expect(settings.hasPrefix(#"{"units":"mmol","#))
    }
}
