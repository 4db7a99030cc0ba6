import Alarms
import App
import Clocks
import Readings
import Testing
import Transmitters

@Suite struct ApplianceAlarmsTests {
    static let start = MonotonicInstant(nanoseconds: 1_000_000_000)
    static let wall = WallClockTime(secondsSinceEpoch: 1_700_000_000)

    @Test func anUrgentLowReadingRaisesTheUrgentLowAlarm() {
        var alarms = ApplianceAlarms(configuration: AlarmConfiguration(watchedDevices: ["g6"]), at: Self.start)
        let reading = Reading(device: "g6", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 48), trend: .singleDown), time: .monotonic(Self.start))
        alarms.observe(.readings("g6", peer: nil, [reading]), monotonicNow: Self.start, wallNow: Self.wall)
        let events = alarms.takeEvents()
        #expect(events.contains { $0.kind == .glucose(.urgentLow) && $0.change == .raised(.high) })
        #expect(alarms.engine.playing?.kind == .glucose(.urgentLow))
    }

    @Test func aLostControllerIsAFaultUntilItComesBack() {
        var alarms = ApplianceAlarms(configuration: AlarmConfiguration(), at: Self.start)
        alarms.observe(.bluetooth(.unavailable(reason: "EOF")), monotonicNow: Self.start, wallNow: Self.wall)
        #expect(alarms.takeEvents().map(\.kind) == [.fault(.controllerLost)])
        alarms.observe(.bluetooth(.poweredOn), monotonicNow: Self.start + .seconds(5), wallNow: Self.wall)
        #expect(alarms.takeEvents().contains { $0.kind == .fault(.controllerLost) && $0.change == .cleared })
    }

    @Test func aSilentTransmitterRaisesSignalLoss() {
        var alarms = ApplianceAlarms(configuration: AlarmConfiguration(watchedDevices: ["g6"]), at: Self.start)
        #expect(alarms.nextDeadline == Self.start + .seconds(20 * 60))
        alarms.handleDeadline(at: Self.start + .seconds(20 * 60))
        #expect(alarms.takeEvents().contains { $0.kind == .signalLoss("g6") })
    }
}
