import Alarms
import Clocks
import Readings

extension Nightscout {
    /// The data one request is answered from, at one moment: a plain value the appliance fills
    /// from what it already holds (docs/nightscout-api.md "The snapshot" maps each field to its
    /// source), built only for a request that was authorized and well formed.
    public struct Snapshot: Sendable {
        /// The wall clock when the request is answered: `serverTime`, the pebble's `now`, and the
        /// default window of the queries that give none (the last 4 days, as Nightscout's).
        public var now: WallClockTime
        /// The recent readings: sensor glucose becomes `sgv` entries, meter glucose `mbg`
        /// entries and "BG Check" treatments; other kinds are ignored. Any order; a reading
        /// appears once (the appliance hands each on once: docs/reading-identity.md).
        public var readings: [RecordedReading]
        /// Fingersticks transmitters took as calibrations (the supervisor's
        /// `HistoryRecord.calibration`).
        public var calibrations: [Calibration]
        /// What each device last said about its battery and sensor.
        public var devices: [DeviceReport]
        /// The alarm thresholds now in force, for `status.json`'s `thresholds`.
        public var thresholds: GlucoseThresholds
        /// The unit people read glucose in: `settings.units`, and the pebble's unit. Values
        /// elsewhere are mg/dL whatever this says, as Nightscout stores them.
        public var units: VigilConfiguration.Alarms.Units
        /// Local time = UTC + this: each document's `utcOffset`, in minutes.
        public var utcOffset: Duration

        public init(now: WallClockTime, readings: [RecordedReading] = [], calibrations: [Calibration] = [],
                    devices: [DeviceReport] = [], thresholds: GlucoseThresholds = .standard,
                    units: VigilConfiguration.Alarms.Units = .milligramsPerDeciliter, utcOffset: Duration = .zero) {
            self.now = now
            self.readings = readings
            self.calibrations = calibrations
            self.devices = devices
            self.thresholds = thresholds
            self.units = units
            self.utcOffset = utcOffset
        }

        var utcOffsetMinutes: Int64 { ISO8601.offsetMinutes(utcOffset) }
    }

    /// One device's last battery report (`StatusBoard`'s battery and its age, put on the wall
    /// clock): served as a devicestatus record.
    public struct DeviceReport: Hashable, Sendable {
        public var device: DeviceID
        public var battery: Percent
        /// When the device reported it.
        public var reportedAt: WallClockTime

        public init(device: DeviceID, battery: Percent, reportedAt: WallClockTime) {
            self.device = device
            self.battery = battery
            self.reportedAt = reportedAt
        }
    }
}
