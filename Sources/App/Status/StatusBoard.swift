import Alarms
import Bluetooth
import Clocks
import Readings
import Transmitters

/// What `vigil status` knows between requests: fed every `ApplianceEvent` the session sees
/// (`observe`), it keeps the last value of each kind per device, batteries, sensor reports,
/// the controller's ups and downs and the last address heard. The link states and alarms are
/// not copied here: `snapshot` takes them from the appliance and the alarm engine at the
/// moment of the request, so they can never be stale.
///
/// Sans-IO: every method takes `now`; nothing here reads a clock or does I/O.
public struct StatusBoard: Sendable {
    /// One configured device: its name and transmitter type.
    public struct ConfiguredDevice: Equatable, Sendable {
        public var id: DeviceID
        public var kind: String

        public init(id: DeviceID, kind: String) {
            self.id = id
            self.kind = kind
        }
    }

    enum ControllerHistory: Equatable, Sendable {
        case neverUp(reason: String?)
        case up(since: MonotonicInstant)
        case lost(reason: String, at: MonotonicInstant)
    }

    struct Seen: Sendable {
        var readings: [Reading.Kind: (reading: Reading, receivedAt: MonotonicInstant)] = [:]
        var battery: (level: Percent, at: MonotonicInstant)?
        var sensorState: String?
        /// The age reported and when: it grows from then on.
        var sensorAge: (age: Duration, at: MonotonicInstant)?
        var sensorReportedAt: MonotonicInstant?
        var address: DeviceAddress?
    }

    public let version: String
    public let startedAt: MonotonicInstant
    public let devices: [ConfiguredDevice]
    var controller = ControllerHistory.neverUp(reason: nil)
    var seen: [DeviceID: Seen] = [:]

    public init(version: String, startedAt: MonotonicInstant, devices: [ConfiguredDevice]) {
        self.version = version
        self.startedAt = startedAt
        self.devices = devices
    }

    /// Takes in one event, as the session hands it to the history and the alarms.
    public mutating func observe(_ event: ApplianceEvent, at now: MonotonicInstant) {
        switch event {
        case let .readings(device, peer, readings):
            heard(device, peer)
            for reading in readings {
                if case let .battery(level) = reading.value {
                    seen[device, default: Seen()].battery = (level, now)
                } else {
                    keep(reading, for: device, at: now)
                }
            }
        case let .transmitter(device, peer, .info(info)):
            heard(device, peer)
            if let level = info.battery { seen[device, default: Seen()].battery = (level, now) }
            if info.sensorState != nil || info.sensorAge != nil {
                // Only the fields just learned are set: keep the other one from before.
                var entry = seen[device, default: Seen()]
                if let state = info.sensorState { entry.sensorState = state }
                if let age = info.sensorAge { entry.sensorAge = (age, now) }
                entry.sensorReportedAt = now
                seen[device] = entry
            }
        case let .transmitter(device, peer, .reading(reading)):
            heard(device, peer)
            keep(reading, for: device, at: now)
        case let .transmitter(device, peer, _):
            heard(device, peer)
        case let .connecting(device, peer), let .encrypted(device, peer, _), let .paired(device, peer, _),
             let .rememberedAddress(device, peer):
            heard(device, peer)
        case .bluetooth(.poweredOn):
            controller = .up(since: now)
        case let .bluetooth(.unavailable(reason)):
            switch controller {
            case .neverUp: controller = .neverUp(reason: reason)
            case .up, .lost: controller = .lost(reason: reason, at: now)
            }
        case .bluetooth(.poweredOff):
            if case .up = controller { controller = .lost(reason: "powered off", at: now) }
        case .driverState, .alarm, .ignoredValues:
            break
        }
    }

    /// A backfill may deliver older values after newer ones: the newest of each kind stays.
    private mutating func keep(_ reading: Reading, for device: DeviceID, at now: MonotonicInstant) {
        if let kept = seen[device]?.readings[reading.kind], case let .monotonic(old) = kept.reading.time,
           case let .monotonic(new) = reading.time, new < old { return }
        seen[device, default: Seen()].readings[reading.kind] = (reading, now)
    }

    private mutating func heard(_ device: DeviceID, _ peer: DeviceAddress?) {
        if let peer { seen[device, default: Seen()].address = peer }
    }

    /// The status now. `links`: from `Appliance.links(at:)`; `alarms`: the engine's active
    /// alarms; `history`: nil when none is kept. Times are turned into wall-clock times with
    /// the two clocks read at the same moment (`now`, `wallNow`).
    public func snapshot(links: [(device: DeviceID, link: ApplianceStatus.Link, peer: DeviceAddress?)], alarms: [ActiveAlarm],
                         history: ApplianceStatus.History?, at now: MonotonicInstant, wallNow: WallClockTime) -> ApplianceStatus {
        let controllerState: ApplianceStatus.Controller = switch controller {
        case let .neverUp(reason): .neverUp(reason: reason)
        case let .up(since): .up(for: now - since)
        case let .lost(reason, at): .lost(reason: reason, ago: now - at)
        }
        let statusDevices = devices.map { configured in
            let entry = seen[configured.id] ?? Seen()
            let link = links.first { $0.device == configured.id }
            let address = link?.peer ?? entry.address
            let readings = Reading.Kind.allCases.compactMap { kind in
                entry.readings[kind].map { ApplianceStatus.LastReading($0.reading, age: Self.age(of: $0.reading.time, now: now, wallNow: wallNow)) }
            }
            var sensor: ApplianceStatus.Sensor?
            if let reportedAt = entry.sensorReportedAt {
                sensor = ApplianceStatus.Sensor(state: entry.sensorState, age: entry.sensorAge.map { $0.age + (now - $0.at) },
                                                reportedAgo: now - reportedAt)
            }
            return ApplianceStatus.Device(
                id: configured.id, kind: configured.kind, link: link?.link ?? .searching,
                address: address.map { "\($0.address)" }, readings: readings,
                battery: entry.battery.map { ApplianceStatus.Battery(level: $0.level, age: now - $0.at) }, sensor: sensor)
        }
        let ordered = Self.ordered(alarms)
        let described = ordered.map { Self.describe($0, now: now, wallNow: wallNow) }
        let isFault = ordered.map { if case .fault = $0.kind { true } else { false } }
        return ApplianceStatus(
            version: version, uptime: now - startedAt, time: wallNow, controller: controllerState, devices: statusDevices,
            alarms: zip(described, isFault).filter { !$0.1 }.map(\.0), faults: zip(described, isFault).filter { $0.1 }.map(\.0),
            history: history)
    }

    /// Most urgent first: sounding before silenced, then by priority, then the oldest.
    static func ordered(_ alarms: [ActiveAlarm]) -> [ActiveAlarm] {
        alarms.sorted { a, b in
            if a.isSounding != b.isSounding { return a.isSounding }
            if a.priority != b.priority { return a.priority > b.priority }
            if a.raisedAt != b.raisedAt { return a.raisedAt < b.raisedAt }
            return a.kind < b.kind
        }
    }

    static func describe(_ alarm: ActiveAlarm, now: MonotonicInstant, wallNow: WallClockTime) -> ApplianceStatus.Alarm {
        let state: ApplianceStatus.Alarm.State = switch alarm.status {
        case .sounding: .sounding
        case .escalated: .escalated
        case let .snoozed(until): .snoozed(until: wallNow + (until - now), remaining: max(.zero, until - now))
        case .awaitingFreshData: .waitingForFreshData
        case .quiet: .noted
        }
        return ApplianceStatus.Alarm(name: alarm.kind.name, priority: alarm.priority, state: state,
                                     since: wallNow - (now - alarm.raisedAt), age: now - alarm.raisedAt)
    }

    /// How old a reading is: a monotonic time against `now`, a meter's own calendar time
    /// against `wallNow`. Never negative (a meter whose clock runs ahead is "just now").
    static func age(of time: Reading.Time, now: MonotonicInstant, wallNow: WallClockTime) -> Duration {
        switch time {
        case let .monotonic(instant): max(.zero, now - instant)
        case let .wallClock(at): max(.zero, wallNow - at)
        }
    }
}
