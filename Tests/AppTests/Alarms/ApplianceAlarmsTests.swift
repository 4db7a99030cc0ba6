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

    @Test func aControllerNeverSeenIsNoControllerNotALostOne() {
        var alarms = ApplianceAlarms(configuration: AlarmConfiguration(), at: Self.start)
        alarms.observe(.bluetooth(.unavailable(reason: "no such device hci0")), monotonicNow: Self.start, wallNow: Self.wall)
        #expect(alarms.takeEvents().map(\.kind) == [.fault(.noController)])
        #expect(alarms.engine.playing?.kind == .fault(.noController))
        alarms.observe(.bluetooth(.poweredOn), monotonicNow: Self.start + .seconds(5), wallNow: Self.wall)
        #expect(alarms.takeEvents().contains { $0.kind == .fault(.noController) && $0.change == .cleared })
        #expect(alarms.engine.activeAlarms.isEmpty)
    }

    @Test func aClockBefore2025IsNotSetUntilTimeArrives() {
        var alarms = ApplianceAlarms(configuration: AlarmConfiguration(), at: Self.start)
        alarms.checkClock(wallNow: WallClockTime(secondsSinceEpoch: 86_400), at: Self.start)
        #expect(alarms.takeEvents().map(\.kind) == [.fault(.clockNotSet)])
        alarms.checkClock(wallNow: WallClockTime(secondsSinceEpoch: 86_460), at: Self.start + .seconds(60))
        #expect(alarms.takeEvents().isEmpty, "still not set: nothing new")
        alarms.checkClock(wallNow: WallClockTime(secondsSinceEpoch: 1_795_000_000), at: Self.start + .seconds(120))  // November 2026
        #expect(alarms.takeEvents().contains { $0.kind == .fault(.clockNotSet) && $0.change == .cleared })
        alarms.checkClock(wallNow: ApplianceAlarms.earliestBelievableTime, at: Self.start + .seconds(180))
        #expect(alarms.engine.activeAlarms.isEmpty, "the first believable second is believed")
    }

    @Test func aFailedWriteIsAStorageFaultUntilAWriteSucceeds() {
        var alarms = ApplianceAlarms(configuration: AlarmConfiguration(), at: Self.start)
        alarms.storage(succeeded: true, at: Self.start)
        #expect(alarms.takeEvents().isEmpty)
        alarms.storage(succeeded: false, at: Self.start + .seconds(1))
        #expect(alarms.takeEvents().map(\.kind) == [.fault(.storageFailing)])
        alarms.storage(succeeded: false, at: Self.start + .seconds(2))
        #expect(alarms.takeEvents().isEmpty)
        alarms.storage(succeeded: true, at: Self.start + .seconds(3))
        #expect(alarms.takeEvents().contains { $0.kind == .fault(.storageFailing) && $0.change == .cleared })
    }

    @Test func aFaceThatCannotBeDrivenIsAFaultUntilItsLinesWorkAgain() {
        var alarms = ApplianceAlarms(configuration: AlarmConfiguration(), at: Self.start)
        alarms.face(working: true, at: Self.start)
        #expect(alarms.takeEvents().isEmpty)
        alarms.face(working: false, at: Self.start + .seconds(1))
        #expect(alarms.takeEvents().map(\.change) == [.raised(.medium)])
        #expect(alarms.engine.playing?.kind == .fault(.faceFailing), "what still works of the face shows it")
        alarms.face(working: false, at: Self.start + .seconds(2))
        #expect(alarms.takeEvents().isEmpty, "still failing: nothing new")
        alarms.face(working: true, at: Self.start + .seconds(3))
        #expect(alarms.takeEvents().contains { $0.kind == .fault(.faceFailing) && $0.change == .cleared })
        #expect(alarms.engine.activeAlarms.isEmpty)
    }

    @Test func aLostControllerIsAFaultUntilItComesBack() {
        var alarms = ApplianceAlarms(configuration: AlarmConfiguration(), at: Self.start)
        alarms.observe(.bluetooth(.poweredOn), monotonicNow: Self.start - .seconds(60), wallNow: Self.wall)
        _ = alarms.takeEvents()
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

/// The device alarms fed from appliance events, in the drivers' own words.
@Suite struct ApplianceDeviceAlarmsTests {
    static let start = MonotonicInstant(nanoseconds: 1_000_000_000)
    static let wall = WallClockTime(secondsSinceEpoch: 1_700_000_000)
    static let devices = [
        TransmitterConfiguration(typeName: "dexcom", device: "g6", options: ["transmitter-id": "811234"]),
        TransmitterConfiguration(typeName: "heart-rate", device: "strap"),
        TransmitterConfiguration(typeName: "ruuvi", device: "fridge", options: ["out-of-range-minutes": "10"]),
    ]

    static func at(_ minutes: Int64) -> MonotonicInstant { start + .seconds(minutes * 60) }

    @Test func configuredDevicesBecomeSettingsAndWatchedDevices() throws {
        let alarms = try ApplianceAlarms(configuration: AlarmConfiguration(), devices: Self.devices, at: Self.start)
        #expect(alarms.engine.configuration.watchedDevices == ["g6"])
        #expect(alarms.engine.configuration.devices["g6"]?.sensorLife == .seconds(240 * 3600))
        #expect(alarms.engine.configuration.devices["fridge"]?.temperature?.outOfRangeFor == .seconds(600))
        #expect(throws: TransmitterConfigurationError.invalidOption("watch", value: "1", expected: "true or false")) {
            _ = try ApplianceAlarms(configuration: AlarmConfiguration(),
                                    devices: [TransmitterConfiguration(typeName: "ruuvi", options: ["watch": "1"])], at: Self.start)
        }
    }

    /// A Dexcom ending its session: the driver's info events ("stopped" from the glucose
    /// reply's calibration state, the session age from TransmitterTimeRx) raise "sensor
    /// ended"; its silence afterwards raises no signal loss.
    @Test func dexcomSessionEndsInItsOwnWords() throws {
        var alarms = try ApplianceAlarms(configuration: AlarmConfiguration(), devices: Self.devices, at: Self.start)
        func info(_ info: TransmitterInfo, at minutes: Int64) {
            alarms.observe(.transmitter("g6", peer: nil, .info(info)), monotonicNow: Self.at(minutes), wallNow: Self.wall)
        }
        info(TransmitterInfo(sensorAge: .seconds(239 * 3600)), at: 0)
        info(TransmitterInfo(sensorState: Dexcom.CalibrationState.ok.description), at: 0)
        #expect(alarms.takeEvents().map(\.kind) == [.device(.sensorExpiring, "g6")])
        info(TransmitterInfo(sensorState: Dexcom.CalibrationState.stopped.description), at: 5)
        #expect(alarms.takeEvents().map(\.kind.name) == ["sensor-expiring:g6", "sensor-ended:g6"])
        alarms.handleDeadline(at: Self.at(60))
        #expect(alarms.engine.activeAlarms.map(\.kind.name) == ["sensor-ended:g6"])
        #expect(!alarms.takeEvents().contains { $0.kind == .signalLoss("g6") })
        // The transmitter's battery report travels in `hardware`.
        info(TransmitterInfo(hardware: "battery A 2.98 V, B 2.90 V, 20 °C"), at: 61)
        #expect(alarms.takeEvents().map(\.kind.name) == ["battery-low:g6"])
    }

    @Test func heartRateReadingsRaiseOnlyWhenSustainedAndNeverWatchTheStrap() throws {
        var alarms = try ApplianceAlarms(configuration: AlarmConfiguration(), devices: Self.devices, at: Self.start)
        for second in Int64(0)...61 {
            let now = Self.start + .seconds(second)
            let reading = Reading(device: "strap", value: .heartRate(BeatsPerMinute(second == 0 ? 250 : 30), contact: .detected),
                                  time: .monotonic(now))
            alarms.observe(.readings("strap", peer: nil, [reading]), monotonicNow: now, wallNow: Self.wall)
            if second == 60 { #expect(alarms.takeEvents().isEmpty) }   // 59 s at 30 bpm
        }
        #expect(alarms.takeEvents().map(\.kind) == [.device(.heartRateLow, "strap")])
        // Only the Dexcom is watched: the strap's silence is not signal loss.
        alarms.handleDeadline(at: Self.at(30))
        #expect(alarms.takeEvents().filter { if case .raised = $0.change { true } else { false } }.map(\.kind)
            == [.signalLoss("g6")])
    }

    @Test func fridgeTemperatureAndBroadcastBattery() throws {
        var alarms = try ApplianceAlarms(configuration: AlarmConfiguration(), devices: Self.devices, at: Self.start)
        for minutes in Int64(0)...10 {
            let now = Self.at(minutes)
            alarms.observe(.readings("fridge", peer: nil, [
                Reading(device: "fridge", value: .temperature(Temperature(degreesCelsius: 9)), time: .monotonic(now)),
                Reading(device: "fridge", value: .humidity(RelativeHumidity(percent: 40)!), time: .monotonic(now)),
            ]), monotonicNow: now, wallNow: Self.wall)
        }
        let battery = Reading(device: "fridge", value: .battery(Percent(5)!), time: .monotonic(Self.at(11)))
        alarms.observe(.readings("fridge", peer: nil, [battery]), monotonicNow: Self.at(11), wallNow: Self.wall)
        #expect(alarms.takeEvents().map(\.kind.name) == ["temperature-high:fridge", "battery-low:fridge"])
    }
}
