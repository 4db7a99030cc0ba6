import Bluetooth
import Clocks
import Readings

/// What a Libre 1 bridge driver (MiaoMiao, Bubble) does with a decoded FRAM and with
/// fingersticks: sensor state and age as `info`, the newest trend record as the live glucose
/// with a trend direction, the history ring as backfill, and user calibration. Sans-IO: times
/// are monotonic instants handed in, and readings are dated `now − age of the record`.
///
/// Identity: every reading carries its `SensorStamp` — the run is the sensor's UID as the bridge
/// reports it (hex), the count the sensor minute the record was measured at (trend record k:
/// age − k; history record k: the newest history record's minute − 15k, `LibreHistoryTiming`).
/// A FRAM read twice gives the same stamps; a new sensor, a new run. Without a UID from the
/// bridge the readings carry no stamp rather than one that could collide with another sensor's.
///
/// Backfill: each FRAM repeats up to 8 hours of history, so the session remembers the newest
/// history minute it has dated (per sensor) and only emits newer records. A FRAM whose history
/// cannot be dated gives no history readings and says so (`malformedValue`). A new sensor resets
/// that, and the calibration.
///
/// Calibration: a fingerstick is paired with the uncalibrated sensor value nearest in time
/// (within `calibrationMatchWindow`) among the trend samples of recent FRAMs. A stick that
/// arrives before the FRAM covering it waits up to `pendingCalibrationLifetime`. Points older
/// than `calibrationMaximumAge` are dropped; the newest `maximumCalibrationPoints` are fitted
/// by `LibreCalibration.fit`. Problems are reported as `malformedValue` events on the bridge's
/// receive characteristic (the framework has no dedicated calibration event).
public struct LibreSensorSession: Hashable, Sendable {
    public struct Configuration: Hashable, Sendable {
        public var calibrationMatchWindow: Duration
        public var pendingCalibrationLifetime: Duration
        public var calibrationMaximumAge: Duration
        public var maximumCalibrationPoints: Int

        public init(calibrationMatchWindow: Duration = .seconds(5 * 60), pendingCalibrationLifetime: Duration = .seconds(20 * 60),
                    calibrationMaximumAge: Duration = .seconds(4 * 24 * 3600), maximumCalibrationPoints: Int = 6) {
            self.calibrationMatchWindow = calibrationMatchWindow
            self.pendingCalibrationLifetime = pendingCalibrationLifetime
            self.calibrationMaximumAge = calibrationMaximumAge
            self.maximumCalibrationPoints = maximumCalibrationPoints
        }
    }

    /// How long uncalibrated trend samples are kept for pairing with fingersticks.
    static let sampleRetention: Duration = .seconds(60 * 60)

    struct Sample: Hashable, Sendable {
        var time: MonotonicInstant
        var sensor: GlucoseConcentration
    }

    struct PendingCalibration: Hashable, Sendable {
        var reference: GlucoseConcentration
        var takenAt: MonotonicInstant
    }

    public let device: DeviceID
    /// Where problems are reported (`malformedValue`): the bridge's receive characteristic.
    public let source: BluetoothUUID
    public let configuration: Configuration
    public private(set) var calibration: LibreCalibration = .uncalibrated
    public private(set) var calibrationPoints: [LibreCalibration.Point] = []
    /// The newest history record already dated: its sensor's run (the UID in hex, empty when
    /// the bridge named none) and sensor minute.
    public private(set) var newestBackfilled: SensorStamp?
    private var samples: [Sample] = []
    private var pending: [PendingCalibration] = []

    public init(device: DeviceID, source: BluetoothUUID, configuration: Configuration = Configuration()) {
        self.device = device
        self.source = source
        self.configuration = configuration
    }

    /// A different sensor: its history, samples and calibration are not ours.
    public mutating func sensorChanged() {
        calibration = .uncalibrated
        calibrationPoints = []
        newestBackfilled = nil
        samples = []
        pending = []
    }

    /// Events for one FRAM read at `now` from the sensor the bridge names `sensorUID` (nil when
    /// it has not said).
    public mutating func process(_ fram: LibreFRAM, sensorUID: [UInt8]?, at now: MonotonicInstant) -> [TransmitterEvent] {
        let run = sensorUID.map { $0.map(hex2).joined() }
        var events: [TransmitterEvent] = [
            .info(TransmitterInfo(sensorState: fram.sensorState.description, sensorAge: .seconds(60 * fram.sensorAgeMinutes))),
        ]
        guard fram.sensorState.givesGlucose else { return events }

        let trend = fram.trend
        for (k, record) in trend.enumerated() where record.problem == nil {
            remember(Sample(time: now - fram.trendAge(k), sensor: LibreCalibration.uncalibrated(raw: record.rawGlucose)))
        }
        samples.removeAll { now - $0.time > Self.sampleRetention }
        events += retryPending(at: now)

        if let problem = trend[0].problem {
            events.append(.malformedValue(source, reason: "newest Libre trend record unusable: \(problem)"))
        } else {
            let live = calibration.glucose(raw: trend[0].rawGlucose)
            if live.milligramsPerDeciliter > 0 {
                let points = trend.enumerated().compactMap { k, record in
                    record.problem == nil ? (minutesAgo: k, glucose: calibration.glucose(raw: record.rawGlucose)) : nil
                }
                let direction = LibreTrendRate.rate(points).map(TrendDirection.init(milligramsPerDeciliterPerMinute:)) ?? .notComputable
                events.append(.reading(Reading(device: device, value: .glucose(live, trend: direction), time: .monotonic(now),
                                               sensorStamp: Self.stamp(run, minute: fram.trendSensorMinute(0)))))
            } else {
                events.append(.malformedValue(source, reason: "calibrated Libre glucose \(live) is not positive (\(calibration))"))
            }
        }
        events += backfill(fram, run: run, at: now)
        return events
    }

    /// A fingerstick reference, measured at `takenAt`.
    public mutating func calibrate(_ reference: GlucoseConcentration, takenAt: MonotonicInstant, at now: MonotonicInstant) -> [TransmitterEvent] {
        if let refusal = FingerstickCalibration.refusal(of: reference) {
            return [.calibration(CalibrationReport(reference: reference, takenAt: takenAt, outcome: .notUsed(reason: refusal)))]
        }
        pending.append(PendingCalibration(reference: reference, takenAt: takenAt))
        return retryPending(at: now)
    }

    // MARK: - Steps

    private mutating func remember(_ sample: Sample) {
        // The same minute arrives in several consecutive FRAMs; keep the newest read of it.
        samples.removeAll { abs(($0.time - sample.time).seconds) < 30 }
        samples.append(sample)
    }

    private mutating func retryPending(at now: MonotonicInstant) -> [TransmitterEvent] {
        var events: [TransmitterEvent] = []
        var stillPending: [PendingCalibration] = []
        var paired: [PendingCalibration] = []
        for stick in pending {
            let nearest = samples.min { abs(($0.time - stick.takenAt).seconds) < abs(($1.time - stick.takenAt).seconds) }
            if let nearest, abs((nearest.time - stick.takenAt).seconds) <= configuration.calibrationMatchWindow.seconds {
                calibrationPoints.append(LibreCalibration.Point(sensor: nearest.sensor, reference: stick.reference, takenAt: stick.takenAt))
                paired.append(stick)
            } else if now - stick.takenAt <= configuration.pendingCalibrationLifetime {
                stillPending.append(stick)
            } else {
                let reason = "no Libre value within \(Int(configuration.calibrationMatchWindow.seconds / 60)) min of the fingerstick"
                events.append(.calibration(CalibrationReport(reference: stick.reference, takenAt: stick.takenAt, outcome: .notUsed(reason: reason))))
            }
        }
        pending = stillPending
        if !paired.isEmpty {
            calibrationPoints.removeAll { now - $0.takenAt > configuration.calibrationMaximumAge }
            calibrationPoints.sort { $0.takenAt < $1.takenAt }
            calibrationPoints = Array(calibrationPoints.suffix(configuration.maximumCalibrationPoints))
            calibration = LibreCalibration.fit(calibrationPoints)
            // Each fingerstick's report says what the fit made of it: a fit that fell back to
            // no calibration at all did not use it.
            let outcome: CalibrationReport.Outcome = calibration.method == .uncalibrated
                ? .notUsed(reason: "the Libre calibration fell back to \(calibration)")
                : .accepted(detail: "\(calibration)")
            for stick in paired {
                events.append(.calibration(CalibrationReport(reference: stick.reference, takenAt: stick.takenAt, outcome: outcome)))
            }
        }
        return events
    }

    private mutating func backfill(_ fram: LibreFRAM, run: String?, at now: MonotonicInstant) -> [TransmitterEvent] {
        let timing: LibreHistoryTiming
        do throws(LibreHistoryTimingError) { timing = try fram.historyTiming() } catch {
            return [.malformedValue(source, reason: "\(error); no history readings from this read")]
        }
        let watermark = newestBackfilled?.run == (run ?? "") ? newestBackfilled?.count : nil
        var readings: [Reading] = []
        for (k, record) in fram.history.enumerated() {
            guard let age = fram.historyAge(k, timing: timing) else { break }
            let minute = timing.sensorMinute(ofHistoryRecord: k)
            if let watermark, Int64(minute) <= watermark { break }
            // An unusable slot is skipped, not reported: history gaps (sensor errors at the time)
            // are normal and the live value already carries the alarm-relevant news.
            guard record.problem == nil else { continue }
            let glucose = calibration.glucose(raw: record.rawGlucose)
            guard glucose.milligramsPerDeciliter > 0 else { continue }
            readings.append(Reading(device: device, value: .glucose(glucose, trend: nil), time: .monotonic(now - age),
                                    sensorStamp: Self.stamp(run, minute: minute)))
        }
        if timing.newestSensorMinute > 0, Int64(timing.newestSensorMinute) > watermark ?? .min {
            newestBackfilled = SensorStamp(run: run ?? "", count: Int64(timing.newestSensorMinute))
        }
        return readings.reversed().map { .reading($0) }
    }

    /// A reading's identity: the sensor's UID and the minute of its life it was measured at.
    static func stamp(_ run: String?, minute: Int) -> SensorStamp? {
        run.map { SensorStamp(run: $0, count: Int64(minute)) }
    }
}
