import Alarms
import Clocks
import Readings

/// What `vigil status` shows: the running appliance at one moment, as a person over SSH or a
/// script asks for it. A plain value: `StatusBoard` builds it
/// from the events the session already sees, and every age in it was computed from the `now`
/// handed to `StatusBoard.snapshot`, so a rendering never reads a clock.
public struct ApplianceStatus: Equatable, Sendable {
    /// Whether the Bluetooth controller is working.
    public enum Controller: Equatable, Sendable {
        /// Up (answered bring-up) for this long.
        case up(for: Duration)
        /// Never answered since start; the last reason it failed, if any.
        case neverUp(reason: String?)
        /// Was up, then failed this long ago for this reason (Vigil keeps reopening it).
        case lost(reason: String, ago: Duration)
    }

    /// Where a configured device's link stands, as a sentence.
    public enum Link: Equatable, Sendable {
        case searching
        case waitingToReconnect(in: Duration)
        /// Its last session did its work; the transmitter has nothing new until then.
        case waitingForNextReading(in: Duration)
        case connecting
        case securingTheLink
        case discoveringServices
        case connected(for: Duration?)
        /// A broadcast transmitter: never connected, its advertisements are read.
        case listeningForAdvertisements
        /// A follower (docs/followers.md), by its service's name: no exchange has ended yet.
        case reachingServer(String)
        /// The follower's last exchange worked.
        case following(String)
        /// The follower's last exchange failed, for this reason; it tries again.
        case serverUnreachable(String, reason: String)
        /// The service refused the follower's account; the reason says what to do.
        case serverRefused(String, reason: String)
    }

    /// One measured value as it was last seen.
    public struct LastReading: Equatable, Sendable {
        public var kind: Reading.Kind
        /// The number in `unit` (beats per minute, mg/dL, °C, %, kJ, ms).
        public var value: Double
        public var unit: String
        /// What the number alone does not say: skin contact, glucose trend, how many RR intervals.
        public var detail: String?
        /// How long ago it was measured (a backfilled reading is older than its notification).
        public var age: Duration

        public init(kind: Reading.Kind, value: Double, unit: String, detail: String? = nil, age: Duration) {
            self.kind = kind
            self.value = value
            self.unit = unit
            self.detail = detail
            self.age = age
        }
    }

    /// A battery level and how long ago the transmitter reported it.
    public struct Battery: Equatable, Sendable {
        public var level: Percent
        public var age: Duration

        public init(level: Percent, age: Duration) {
            self.level = level
            self.age = age
        }
    }

    /// A sensor's state and age in the driver's own words, as last reported.
    public struct Sensor: Equatable, Sendable {
        /// "warmup", "ok", "expired": the transmitter's vocabulary.
        public var state: String?
        /// The sensor's age now: the age reported plus the time since the report.
        public var age: Duration?
        /// How long ago the driver reported it.
        public var reportedAgo: Duration

        public init(state: String?, age: Duration?, reportedAgo: Duration) {
            self.state = state
            self.age = age
            self.reportedAgo = reportedAgo
        }
    }

    /// One `[[device]]` of the configuration.
    public struct Device: Equatable, Sendable {
        public var id: DeviceID
        /// The configured transmitter type ("heart-rate", "dexcom", "bthome").
        public var kind: String
        public var link: Link
        /// "C0:11:22:33:44:55", once known (connected, remembered, or heard advertising).
        public var address: String?
        /// The last value of each kind this device reported, in `Reading.Kind` order; battery
        /// levels are in `battery`.
        public var readings: [LastReading]
        public var battery: Battery?
        public var sensor: Sensor?

        public init(id: DeviceID, kind: String, link: Link, address: String? = nil, readings: [LastReading] = [],
                    battery: Battery? = nil, sensor: Sensor? = nil) {
            self.id = id
            self.kind = kind
            self.link = link
            self.address = address
            self.readings = readings
            self.battery = battery
            self.sensor = sensor
        }
    }

    /// An alarm whose condition holds (faults included, in `faults`).
    public struct Alarm: Equatable, Sendable {
        public enum State: Equatable, Sendable {
            case sounding
            case escalated
            case snoozed(until: WallClockTime, remaining: Duration)
            case waitingForFreshData
            /// An informational alarm after its chirp: active, silent.
            case noted
        }

        /// The stable name (`urgent-low`, `signal-loss:g6`, `fault:storage-failing`).
        public var name: String
        public var priority: AlarmPriority
        public var state: State
        public var since: WallClockTime
        public var age: Duration

        public init(name: String, priority: AlarmPriority, state: State, since: WallClockTime, age: Duration) {
            self.name = name
            self.priority = priority
            self.state = state
            self.since = since
            self.age = age
        }
    }

    /// The rolling history, when one is open.
    public struct History: Equatable, Sendable {
        public var path: String
        /// Rows waiting in memory for the next commit (more than a turn's worth: writes fail).
        public var pendingRows: Int

        public init(path: String, pendingRows: Int) {
            self.path = path
            self.pendingRows = pendingRows
        }
    }

    public var version: String
    public var uptime: Duration
    /// The wall-clock time of the snapshot: what `since` and `snoozed until` are measured against.
    public var time: WallClockTime
    public var controller: Controller
    public var devices: [Device]
    /// Active alarms that are not appliance faults, most urgent first.
    public var alarms: [Alarm]
    /// Active appliance faults (no controller, storage failing, clock not set, ...).
    public var faults: [Alarm]
    /// nil: no history is kept (the demo) or it could not be opened (the storage fault says so).
    public var history: History?
    /// The page on the home network (`[web]`); nil when it is off.
    public var web: Web?
    /// The Nightscout upload (`[nightscout]`); nil when it is off.
    public var upload: Upload?

    /// Where the upload stands (docs/nightscout-upload.md "Status"); no URL, no secret.
    public struct Upload: Equatable, Sendable {
        public var status: Nightscout.UploadStatus
        /// The warning after an hour of failures with rows waiting; nil otherwise.
        public var fault: String?

        public init(status: Nightscout.UploadStatus, fault: String?) {
            self.status = status
            self.fault = fault
        }
    }

    /// Whether the page is served: its address, or why the listener could not be had.
    public enum Web: Equatable, Sendable {
        case serving(url: String)
        case notServed(reason: String)
    }

    public init(version: String, uptime: Duration, time: WallClockTime, controller: Controller, devices: [Device],
                alarms: [Alarm], faults: [Alarm], history: History?, web: Web? = nil) {
        self.version = version
        self.uptime = uptime
        self.time = time
        self.controller = controller
        self.devices = devices
        self.alarms = alarms
        self.faults = faults
        self.history = history
        self.web = web
    }
}

extension ApplianceStatus.LastReading {
    /// The value a status line shows for `reading`, in the unit its type carries.
    public init(_ reading: Reading, age: Duration) {
        switch reading.value {
        case let .heartRate(bpm, contact):
            self.init(kind: .heartRate, value: Double(bpm.value), unit: "bpm", detail: contact == .notReported ? nil : "\(contact)", age: age)
        case let .rrIntervals(intervals):
            // The latest beat-to-beat interval stands for the batch; the count says how many came.
            self.init(kind: .rrIntervals, value: intervals.last?.milliseconds ?? 0, unit: "ms",
                      detail: intervals.count == 1 ? nil : "last of \(intervals.count)", age: age)
        case let .energyExpended(energy):
            self.init(kind: .energyExpended, value: Double(energy.kilojoules), unit: "kJ", age: age)
        case let .glucose(concentration, trend):
            self.init(kind: .glucose, value: concentration.milligramsPerDeciliter, unit: "mg/dL", detail: trend.map { "trend \($0)" }, age: age)
        case let .meterGlucose(concentration, context):
            self.init(kind: .meterGlucose, value: concentration.milligramsPerDeciliter, unit: "mg/dL", detail: context?.text, age: age)
        case let .humidity(humidity):
            self.init(kind: .humidity, value: humidity.percent, unit: "%", age: age)
        case let .temperature(temperature):
            self.init(kind: .temperature, value: temperature.degreesCelsius, unit: "°C", age: age)
        case let .battery(level):
            self.init(kind: .battery, value: Double(level.value), unit: "%", age: age)
        }
    }
}
