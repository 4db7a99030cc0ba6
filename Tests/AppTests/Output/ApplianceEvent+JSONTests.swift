import Alarms
import App
import Bluetooth
import Clocks
import Readings
import Testing
import Transmitters

@Suite struct ApplianceEventJSONTests {
    static let peer = DeviceAddress(Address(value: 0xC0_11_22_33_44_55), type: .random)
    static let now = MonotonicInstant(nanoseconds: 100_000_000_000)
    static let wall = WallClockTime(secondsSinceEpoch: 1_700_000_000)

    /// A heart-rate measurement's rate, RR intervals and energy are one record.
    @Test func heartRateIsOneRecord() {
        let t = Reading.Time.monotonic(Self.now)
        let event = ApplianceEvent.readings("hr", peer: Self.peer, [
            Reading(device: "hr", value: .heartRate(BeatsPerMinute(72), contact: .detected), time: t),
            Reading(device: "hr", value: .rrIntervals([RRInterval(ticks: 832)]), time: t),
            Reading(device: "hr", value: .energyExpended(EnergyExpended(kilojoules: 12)), time: t),
        ])
        let lines = event.json(monotonicNow: Self.now, wallNow: Self.wall).map(\.rendered)
        #expect(lines == [#"{"event":"reading","device":"hr","address":"C0:11:22:33:44:55","kind":"heart-rate","bpm":72,"contact":"detected","rrIntervals":[0.8125],"energyExpended":12,"time":"2023-11-14T22:13:20.000Z"}"#])
    }

    /// Backfilled glucose values are one record each, dated on the wall clock.
    @Test func glucoseBackfillIsOneRecordPerReading() {
        let readings = (0..<3).map { i in
            Reading(device: "g6", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: Double(100 + i)), trend: .flat),
                    time: .monotonic(Self.now - .seconds(300 * (2 - i))))
        }
        let lines = ApplianceEvent.readings("g6", peer: nil, readings).json(monotonicNow: Self.now, wallNow: Self.wall).map(\.rendered)
        #expect(lines == [
            #"{"event":"reading","device":"g6","kind":"glucose","mgdl":100,"trend":"Flat","time":"2023-11-14T22:03:20.000Z"}"#,
            #"{"event":"reading","device":"g6","kind":"glucose","mgdl":101,"trend":"Flat","time":"2023-11-14T22:08:20.000Z"}"#,
            #"{"event":"reading","device":"g6","kind":"glucose","mgdl":102,"trend":"Flat","time":"2023-11-14T22:13:20.000Z"}"#,
        ])
    }

    /// A reading's sensor stamp goes with it, so a consumer can tell a reading from a copy.
    @Test func aStampedReadingCarriesItsStamp() {
        let reading = Reading(device: "g6", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 112), trend: .flat),
                              time: .monotonic(Self.now), sensorStamp: SensorStamp(run: "8112AB", count: 86_400))
        let lines = ApplianceEvent.readings("g6", peer: nil, [reading]).json(monotonicNow: Self.now, wallNow: Self.wall).map(\.rendered)
        #expect(lines == [#"{"event":"reading","device":"g6","kind":"glucose","mgdl":112,"trend":"Flat","sensorTime":86400,"sensorRun":"8112AB","time":"2023-11-14T22:13:20.000Z"}"#])
    }

    /// What became of a fingerstick offered as a calibration.
    @Test func aCalibrationReportSaysWhatBecameOfTheFingerstick() {
        let stick = GlucoseConcentration(milligramsPerDeciliter: 104)
        let accepted = ApplianceEvent.transmitter("g6", peer: nil, .calibration(CalibrationReport(reference: stick, takenAt: Self.now, outcome: .accepted(detail: "accepted"))))
        let unused = ApplianceEvent.transmitter("g6", peer: nil, .calibration(CalibrationReport(reference: stick, takenAt: Self.now, outcome: .notUsed(reason: "too old"))))
        #expect(accepted.json(monotonicNow: Self.now, wallNow: Self.wall).map(\.rendered)
                == [#"{"event":"calibration","device":"g6","mgdl":104,"accepted":true,"detail":"accepted"}"#])
        #expect(unused.json(monotonicNow: Self.now, wallNow: Self.wall).map(\.rendered)
                == [#"{"event":"calibration","device":"g6","mgdl":104,"accepted":false,"reason":"too old"}"#])
        #expect(unused.logLine == "g6: calibration 104 mg/dL not used: too old")
    }

    /// Fridge readings at the resolution the thermometer sent: BTHome humidity 0x03 in 0.01 %
    /// (8150 → 81.5, which `vigil run --events-json` once printed as 82) and a RuuviTag's
    /// 0.005 °C step (4861 → 24.305).
    @Test func fridgeReadingsKeepTheirDecimals() {
        let t = Reading.Time.monotonic(Self.now)
        let lines = ApplianceEvent.readings("fridge", peer: nil, [
            Reading(device: "fridge", value: .humidity(RelativeHumidity(percent: 81.5)!), time: t),
            Reading(device: "fridge", value: .temperature(Temperature(degreesCelsius: 24.305)), time: t),
        ]).json(monotonicNow: Self.now, wallNow: Self.wall).map(\.rendered)
        #expect(lines == [
            #"{"event":"reading","device":"fridge","kind":"humidity","humidity":81.5,"time":"2023-11-14T22:13:20.000Z"}"#,
            #"{"event":"reading","device":"fridge","kind":"temperature","celsius":24.305,"time":"2023-11-14T22:13:20.000Z"}"#,
        ])
    }

    /// A fingerstick with the meal and tester its meter sent (Measurement Context 0x2A34).
    @Test func meterGlucoseCarriesItsContext() {
        let reading = Reading(device: "meter", value: .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 104),
                                                                  context: MeterReadingContext(meal: .postprandial, tester: .selfTested)),
                              time: .wallClock(Self.wall))
        #expect(ApplianceEvent.readings("meter", peer: nil, [reading]).json(monotonicNow: Self.now, wallNow: Self.wall).map(\.rendered) == [
            #"{"event":"reading","device":"meter","kind":"meter-glucose","mgdl":104,"meal":"postprandial","tester":"self","time":"2023-11-14T22:13:20.000Z"}"#,
        ])
    }

    @Test func batteryInfoBecomesABatteryEvent() {
        let event = ApplianceEvent.transmitter("hr", peer: Self.peer, .info(TransmitterInfo(battery: Percent(87), manufacturer: "Acme")))
        #expect(event.json(monotonicNow: Self.now, wallNow: Self.wall).map(\.rendered) == [
            #"{"event":"battery","device":"hr","address":"C0:11:22:33:44:55","percent":87}"#,
            #"{"event":"info","device":"hr","address":"C0:11:22:33:44:55","manufacturer":"Acme"}"#,
        ])
    }
}

@Suite struct ApplianceEventAlarmLogLineTests {
    let t = MonotonicInstant(nanoseconds: 1_000_000_000_000)

    @Test(arguments: [
        (AlarmEvent.Change.raised(.high), "ALARM urgent-low: raised (high priority)"),
        (.snoozed(until: MonotonicInstant(nanoseconds: 1_000_000_000_000) + .seconds(900)), "ALARM urgent-low: snoozed for 15 min"),
        (.acknowledged(until: MonotonicInstant(nanoseconds: 1_000_000_000_000) + .seconds(90)), "ALARM urgent-low: acknowledged for 90 s"),
        (.escalated, "ALARM urgent-low: escalated"),
        (.cleared, "ALARM urgent-low: cleared"),
        (.reRaised, "ALARM urgent-low: sounding again"),
    ])
    func alarmChangesReadAsWords(change: AlarmEvent.Change, line: String) {
        #expect(ApplianceEvent.alarm(AlarmEvent(time: t, kind: .glucose(.urgentLow), change: change)).logLine == line)
    }
}
