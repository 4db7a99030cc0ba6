import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

/// The Libre reading pipeline on a virtual clock, fed the real xDrip dump and variants of it.
@Suite struct LibreSensorSessionTests {
    static let t0 = MonotonicInstant(nanoseconds: 100_000 * 1_000_000_000)
    static let source = NordicUART.receive

    /// A made-up sensor UID (the one the MiaoMiao and Bubble fixtures send), and its run.
    static let uid = [UInt8](hex: "2c 5e 8b 00 00 a4 07 e0")
    static let run = "2C5E8B0000A407E0"

    static func minutes(_ m: Int) -> Duration { .seconds(60 * m) }

    static func fram(_ bytes: [UInt8] = LibreFixtures.xDripLibre1) -> LibreFRAM { try! LibreFRAM(decoding: bytes) }

    static func glucose(_ event: TransmitterEvent) -> (mgdl: Double, trend: TrendDirection?, time: MonotonicInstant)? {
        guard case let .reading(reading) = event, case let .glucose(value, trend) = reading.value,
              case let .monotonic(time) = reading.time else { return nil }
        return (value.milligramsPerDeciliter, trend, time)
    }

    static func stamps(_ events: some Sequence<TransmitterEvent>) -> [SensorStamp?] {
        events.compactMap { if case let .reading(reading) = $0 { reading.sensorStamp } else { nil } }
    }

    static func reasons(_ events: [TransmitterEvent]) -> [String] {
        events.compactMap { if case let .malformedValue(_, reason) = $0 { reason } else { nil } }
    }

    /// What became of each fingerstick the session was offered, in order.
    static func outcomes(_ events: [TransmitterEvent]) -> [CalibrationReport.Outcome] {
        events.compactMap { if case let .calibration(report) = $0 { report.outcome } else { nil } }
    }

    @Test func realDumpGivesInfoLiveValueAndBackfill() throws {
        var session = LibreSensorSession(device: "libre", source: Self.source)
        let events = session.process(Self.fram(), sensorUID: Self.uid, at: Self.t0)
        #expect(events.count == 34)
        #expect(events[0] == .info(TransmitterInfo(sensorState: "ready", sensorAge: .seconds(4993 * 60))))
        let live = try #require(Self.glucose(events[1]))
        #expect(live.mgdl == 1323 / 8.5)
        #expect(live.trend == .fortyFiveUp)
        #expect(live.time == Self.t0)
        #expect(events[1] == .reading(Reading(device: "libre", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 1323 / 8.5), trend: .fortyFiveUp),
                                              time: .monotonic(Self.t0), sensorStamp: SensorStamp(run: Self.run, count: 4993))))
        // Backfill oldest first: history record k is 13 + 15k minutes old, value raw / 8.5, no trend.
        let backfill = events[2...].compactMap(Self.glucose)
        #expect(backfill.count == 32)
        for (i, reading) in backfill.enumerated() {
            let k = 31 - i
            #expect(reading.time == Self.t0 - Self.minutes(13 + 15 * k))
            #expect(reading.mgdl == Double(LibreFixtures.historyRaw[k]) / 8.5)
            #expect(reading.trend == nil)
        }
        // Stamped with the sensor minute: 4980 (the newest) back to 4980 − 31 × 15 = 4515.
        let expected: [SensorStamp?] = (0..<32).reversed().map { (k: Int) -> SensorStamp? in SensorStamp(run: Self.run, count: Int64(4980 - 15 * k)) }
        #expect(Self.stamps(events[2...]) == expected)
        #expect(session.newestBackfilled == SensorStamp(run: Self.run, count: 4980))
    }

    @Test func historyIsNotRepeated() {
        var session = LibreSensorSession(device: "libre", source: Self.source)
        _ = session.process(Self.fram(), sensorUID: Self.uid, at: Self.t0)
        // Five minutes later, the same history (age 4998: index lags, the comment reading dates
        // the newest record 18 minutes back = the same instant as before): nothing new.
        let later = session.process(Self.fram(LibreFixtures.withAge(4998)), sensorUID: Self.uid, at: Self.t0 + Self.minutes(5))
        #expect(later.count == 2)
        // Fifteen minutes after the first read, the sensor has written slot 12 (index 13; age
        // 5008 → delay 13): exactly one new history reading, 15 minutes after the last one.
        let next = LibreFixtures.variant([27: 13, 316: UInt8(5008 & 0xFF), 317: UInt8(5008 >> 8)])
        let events = session.process(Self.fram(next), sensorUID: Self.uid, at: Self.t0 + Self.minutes(15))
        let backfill = events[2...].compactMap(Self.glucose)
        #expect(backfill.count == 1)
        #expect(backfill.first?.time == Self.t0 + Self.minutes(2))
        #expect(backfill.first?.mgdl == 1158 / 8.5)  // slot 12's value: the oldest record of the first read
    }

    @Test(arguments: [UInt8(0x01), 0x02, 0x04, 0x05, 0x06])
    func sensorNotReadyGivesStateOnly(state: UInt8) {
        var session = LibreSensorSession(device: "libre", source: Self.source)
        let age = state == 0x01 ? 0 : (state == 0x02 ? 30 : 21000)
        let events = session.process(Self.fram(LibreFixtures.withAge(age, state: state)), sensorUID: Self.uid, at: Self.t0)
        #expect(events == [.info(TransmitterInfo(sensorState: LibreSensorState(rawValue: state)!.description, sensorAge: Self.minutes(age)))])
    }

    @Test func unusableNewestTrendRecordIsReported() {
        var changes: [Int: UInt8] = [:]
        for offset in 118..<124 { changes[offset] = 0 }  // trend slot 15, the newest
        var session = LibreSensorSession(device: "libre", source: Self.source)
        let events = session.process(Self.fram(LibreFixtures.variant(changes)), sensorUID: Self.uid, at: Self.t0)
        #expect(events[1] == .malformedValue(Self.source, reason: "newest Libre trend record unusable: raw glucose 0 (slot never written)"))
        #expect(events.compactMap(Self.glucose).count == 32)  // the backfill still comes
    }

    @Test func fewUsableTrendRecordsMeanNoTrend() throws {
        var changes: [Int: UInt8] = [:]
        for slot in 0..<9 { for byte in 0..<6 { changes[28 + 6 * slot + byte] = 0 } }  // 9 of 16 unusable
        var session = LibreSensorSession(device: "libre", source: Self.source)
        let events = session.process(Self.fram(LibreFixtures.variant(changes)), sensorUID: Self.uid, at: Self.t0)
        #expect(try #require(Self.glucose(events[1])).trend == .notComputable)
    }

    /// A FRAM read again (a reconnection, a restart, another session) names its readings the
    /// same way: the live value by the sensor's age, history by the record's sensor minute.
    @Test func reReadFRAMGivesTheSameStamps() {
        var first = LibreSensorSession(device: "libre", source: Self.source)
        var second = LibreSensorSession(device: "libre", source: Self.source)
        let once = Self.stamps(first.process(Self.fram(), sensorUID: Self.uid, at: Self.t0))
        let again = Self.stamps(second.process(Self.fram(), sensorUID: Self.uid, at: Self.t0 + Self.minutes(90)))
        #expect(once.count == 33)
        #expect(once == again)
        // Read again by the same session: the live value repeats its stamp, no history repeats.
        #expect(Self.stamps(first.process(Self.fram(), sensorUID: Self.uid, at: Self.t0 + Self.minutes(1))) == [once[0]])
    }

    /// Another sensor with the same bytes: another run, so none of its readings is taken for
    /// the first sensor's; and its history is not held back by the first sensor's watermark.
    @Test func newSensorGivesNewRuns() {
        var session = LibreSensorSession(device: "libre", source: Self.source)
        let old = Self.stamps(session.process(Self.fram(), sensorUID: Self.uid, at: Self.t0))
        let otherUID = [UInt8](hex: "11 22 33 00 00 a4 07 e0")
        let new = Self.stamps(session.process(Self.fram(), sensorUID: otherUID, at: Self.t0 + Self.minutes(1)))
        #expect(new.count == 33)
        #expect(new.allSatisfy { $0?.run == "1122330000A407E0" })
        #expect(Set(old).isDisjoint(with: Set(new)))
        #expect(new.map { $0?.count } == old.map { $0?.count })
    }

    /// A bridge that has not named the sensor: readings without a stamp, never a made-up one.
    @Test func noUIDNoStamp() {
        var session = LibreSensorSession(device: "libre", source: Self.source)
        let events = session.process(Self.fram(), sensorUID: nil, at: Self.t0)
        let stamps = Self.stamps(events)
        #expect(stamps.count == 33)
        #expect(stamps.allSatisfy { $0 == nil })
    }

    /// A history index two slots from the one the age predicts: the live value still comes,
    /// the history does not, and the event says why.
    @Test func undatableHistoryIsReportedNotGuessed() {
        var session = LibreSensorSession(device: "libre", source: Self.source)
        let events = session.process(Self.fram(LibreFixtures.variant([27: 14])), sensorUID: Self.uid, at: Self.t0)
        #expect(events.compactMap(Self.glucose).count == 1)
        #expect(Self.reasons(events) == ["Libre history index 14 is out of step with sensor age 4993 min (which predicts 12, "
            + "or one either side): its history cannot be dated; no history readings from this read"])
        #expect(session.newestBackfilled == nil)
    }

    /// The index moved before the minute counter (age 4997, index 13; LibreHistoryTimingTests):
    /// the newest record is 2 minutes old, not 32 as a lagging reading would have it.
    @Test func indexMovedFirstDatesTheNewestRecordTwoMinutesBack() throws {
        var session = LibreSensorSession(device: "libre", source: Self.source)
        let fram = LibreFixtures.variant([27: 13, 316: UInt8(4997 & 0xFF), 317: UInt8(4997 >> 8)])
        let events = session.process(Self.fram(fram), sensorUID: Self.uid, at: Self.t0)
        let newest = try #require(events.last.flatMap(Self.glucose))
        #expect(newest.time == Self.t0 - Self.minutes(2))
        #expect(Self.stamps(events).last == SensorStamp(run: Self.run, count: 4995))
    }

    // MARK: - Calibration

    @Test func calibrationChangesValues() throws {
        var session = LibreSensorSession(device: "libre", source: Self.source)
        _ = session.process(Self.fram(), sensorUID: Self.uid, at: Self.t0)
        // A fingerstick of 170 taken 2 minutes before the read: trend record k = 2, raw 1352.
        let taken = session.calibrate(GlucoseConcentration(milligramsPerDeciliter: 170), takenAt: Self.t0 - Self.minutes(2), at: Self.t0)
        #expect(session.calibration.method == .offset)
        #expect(Self.outcomes(taken) == [.accepted(detail: "\(session.calibration)")])
        #expect(abs(session.calibration.intercept - (170 - 1352 / 8.5)) < 1e-9)
        #expect(session.calibrationPoints.count == 1)
        let events = session.process(Self.fram(LibreFixtures.withAge(4994)), sensorUID: Self.uid, at: Self.t0 + Self.minutes(1))
        let live = try #require(Self.glucose(events[1]))
        #expect(abs(live.mgdl - (1323 / 8.5 + 170 - 1352 / 8.5)) < 1e-9)

        // A second stick far enough away: least squares through both points.
        // k = 10 of the second read (raw 1225 at t0 − 9 min) vs 130: points (159.06, 170) and (144.12, 130) are
        // only 14.9 mg/dL apart, so the mean offset is used instead, and that is reported.
        let fallback = session.calibrate(GlucoseConcentration(milligramsPerDeciliter: 130), takenAt: Self.t0 - Self.minutes(9), at: Self.t0 + Self.minutes(1))
        #expect(session.calibration.method == .offset)
        guard case let .accepted(detail)? = Self.outcomes(fallback).first else {
            Issue.record("no report for the second stick: \(fallback)")
            return
        }
        #expect(detail.hasPrefix("offset") && detail.contains("sensor values only 14.9"), "\(detail)")
    }

    @Test func stickBeforeDataWaitsForIt() {
        var session = LibreSensorSession(device: "libre", source: Self.source)
        #expect(session.calibrate(GlucoseConcentration(milligramsPerDeciliter: 150), takenAt: Self.t0, at: Self.t0).isEmpty)
        #expect(session.calibration == .uncalibrated)
        // The first FRAM arrives a minute later; its trend record k = 1 (raw 1330) is at t0.
        _ = session.process(Self.fram(), sensorUID: Self.uid, at: Self.t0 + Self.minutes(1))
        #expect(session.calibration.method == .offset)
        #expect(abs(session.calibration.intercept - (150 - 1330 / 8.5)) < 1e-9)
    }

    @Test func stickWithoutMatchingDataExpires() {
        var session = LibreSensorSession(device: "libre", source: Self.source)
        _ = session.calibrate(GlucoseConcentration(milligramsPerDeciliter: 150), takenAt: Self.t0, at: Self.t0)
        // 21 minutes later: the trend covers t0 + 6 … t0 + 21 min, nothing within 5 min of t0.
        let events = session.process(Self.fram(), sensorUID: Self.uid, at: Self.t0 + Self.minutes(21))
        #expect(Self.outcomes(events) == [.notUsed(reason: "no Libre value within 5 min of the fingerstick")])
        #expect(session.calibration == .uncalibrated)
    }

    /// Calibration takes fingersticks within 40–400 mg/dL only (FingerstickCalibration, after
    /// xDrip+ `Calibration.getConvertedBg`), the range the xBridge path uses too.
    @Test(arguments: [10.0, 39, 401, 700])
    func implausibleStickIsRefused(mgdl: Double) {
        var session = LibreSensorSession(device: "libre", source: Self.source)
        _ = session.process(Self.fram(), sensorUID: Self.uid, at: Self.t0)
        let events = session.calibrate(GlucoseConcentration(milligramsPerDeciliter: mgdl), takenAt: Self.t0, at: Self.t0)
        #expect(Self.outcomes(events) == [.notUsed(reason: "outside 40–400 mg/dL, the range calibration accepts")])
        #expect(session.calibration == .uncalibrated)
    }

    @Test func newSensorForgetsCalibrationAndBackfill() {
        var session = LibreSensorSession(device: "libre", source: Self.source)
        _ = session.process(Self.fram(), sensorUID: Self.uid, at: Self.t0)
        _ = session.calibrate(GlucoseConcentration(milligramsPerDeciliter: 170), takenAt: Self.t0, at: Self.t0)
        #expect(session.calibration.method == .offset)
        session.sensorChanged()
        #expect(session.calibration == .uncalibrated)
        #expect(session.calibrationPoints.isEmpty)
        #expect(session.newestBackfilled == nil)
    }

    @Test func oldPointsAgeOut() {
        var session = LibreSensorSession(device: "libre", source: Self.source,
                                         configuration: .init(calibrationMaximumAge: .seconds(3600)))
        _ = session.process(Self.fram(), sensorUID: Self.uid, at: Self.t0)
        _ = session.calibrate(GlucoseConcentration(milligramsPerDeciliter: 170), takenAt: Self.t0, at: Self.t0)
        let later = Self.t0 + .seconds(2 * 3600)
        _ = session.process(Self.fram(), sensorUID: Self.uid, at: later)
        _ = session.calibrate(GlucoseConcentration(milligramsPerDeciliter: 160), takenAt: later, at: later)
        #expect(session.calibrationPoints.count == 1)
        #expect(session.calibrationPoints.first?.takenAt == later)
    }
}
