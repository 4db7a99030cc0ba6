import Alarms
import Bluetooth
import Clocks
import Readings
import Transmitters

extension ApplianceEvent {
    /// The `--events-json` form: one object per line, `event` first, then `device` (the
    /// configured name) and `address`. Field names are a contract with scripts and tests.
    /// Reading times are monotonic in the core; the two clocks read at the same moment turn
    /// them into wall-clock times for the record.
    public func json(monotonicNow: MonotonicInstant, wallNow: WallClockTime) -> [JSON] {
        switch self {
        case let .transmitter(device, peer, event):
            return Self.transmitterJSON(device, peer, event)
        case let .readings(device, peer, readings):
            return Self.records(readings).map { group in
                let time = group[0].time.wallClockTime(monotonicNow: monotonicNow, wallNow: wallNow)
                return .object(Self.head("reading", device, peer) + Self.readingFields(group) + [("time", .string(time.iso8601))])
            }
        case let .connecting(device, peer):
            return [.object(Self.head("connecting", device, peer))]
        case let .encrypted(device, peer, bonded):
            return [.object(Self.head("encrypted", device, peer) + [("bonded", .bool(bonded))])]
        case let .paired(device, peer, sc):
            return [.object(Self.head("paired", device, peer) + [("secureConnections", .bool(sc))])]
        case let .rememberedAddress(device, peer):
            return [.object(Self.head("remembered", device, peer))]
        case let .ignoredValues(device, peer, attribute, count):
            return [.object(Self.head("ignored-values", device, peer) + [("attribute", .int(Int64(attribute))), ("count", .int(Int64(count)))])]
        case let .driverState(device, state):
            return [.object(Self.head("state-saved", device, nil) + state.sorted { $0.key < $1.key }.map { ($0.key, JSON.string($0.value)) })]
        case let .bluetooth(state):
            return [.object([("event", "bluetooth"), ("state", .string(Self.stateWord(state)))] + Self.reason(state))]
        case let .alarm(alarm):
            let change: (String, [(String, JSON)]) = switch alarm.change {
            case .raised(let priority): ("raised", [("priority", .string("\(priority)"))])
            case .snoozed(let until): ("snoozed", [("seconds", .double((until - monotonicNow).seconds))])
            case .acknowledged(let until): ("acknowledged", [("seconds", .double((until - monotonicNow).seconds))])
            case .escalated: ("escalated", [])
            case .cleared: ("cleared", [])
            case .reRaised: ("re-raised", [])
            }
            let time = wallNow - (monotonicNow - alarm.time)
            return [.object([("event", "alarm"), ("alarm", .string(alarm.kind.name)), ("change", .string(change.0))] + change.1 + [("time", .string(time.iso8601))])]
        }
    }

    static func head(_ event: String, _ device: DeviceID, _ peer: DeviceAddress?) -> [(String, JSON)] {
        var members: [(String, JSON)] = [("event", .string(event)), ("device", .string(device.rawValue))]
        if let peer { members.append(("address", .string("\(peer.address)"))) }
        return members
    }

    static func stateWord(_ state: BluetoothState) -> String {
        switch state {
        case .poweredOn: "on"
        case .poweredOff: "off"
        case .unavailable: "unavailable"
        }
    }

    static func reason(_ state: BluetoothState) -> [(String, JSON)] {
        if case .unavailable(let reason) = state { return [("reason", .string(reason))] }
        return []
    }

    /// Splits readings into records: a heart-rate measurement's rate, RR intervals and energy
    /// (same time) form one record; every other reading — each backfilled glucose value among
    /// them — is a record of its own.
    static func records(_ readings: [Reading]) -> [[Reading]] {
        var out: [[Reading]] = []
        for reading in readings {
            let isHeart = [.heartRate, .rrIntervals, .energyExpended].contains(reading.kind)
            if isHeart, let last = out.last, let first = last.first, first.time == reading.time,
               [.heartRate, .rrIntervals, .energyExpended].contains(first.kind), !last.contains(where: { $0.kind == reading.kind }) {
                out[out.count - 1].append(reading)
            } else {
                out.append([reading])
            }
        }
        return out
    }

    /// One record's fields.
    static func readingFields(_ readings: [Reading]) -> [(String, JSON)] {
        var kind: String?
        var fields: [(String, JSON)] = []
        for reading in readings {
            switch reading.value {
            case let .heartRate(bpm, contact):
                kind = kind ?? "heart-rate"
                fields.append(("bpm", .int(Int64(bpm.value))))
                let word = switch contact {
                case .detected: "detected"
                case .notDetected: "not-detected"
                case .notReported: "unsupported"
                }
                fields.append(("contact", .string(word)))
            case .rrIntervals(let intervals):
                kind = kind ?? "rr-intervals"
                fields.append(("rrIntervals", .array(intervals.map { .double($0.seconds) })))
            case .energyExpended(let energy):
                kind = kind ?? "energy-expended"
                fields.append(("energyExpended", .int(Int64(energy.kilojoules))))
            case let .glucose(concentration, trend):
                kind = kind ?? "glucose"
                fields.append(("mgdl", .double(concentration.milligramsPerDeciliter)))
                if let trend { fields.append(("trend", .string("\(trend)"))) }
            case let .meterGlucose(concentration, context):
                kind = kind ?? "meter-glucose"
                fields.append(("mgdl", .double(concentration.milligramsPerDeciliter)))
                if let meal = context?.meal { fields.append(("meal", .string(meal.rawValue))) }
                if let tester = context?.tester { fields.append(("tester", .string(tester.rawValue))) }
            case .humidity(let h):
                kind = kind ?? "humidity"
                fields.append(("humidity", .double(h.percent)))
            case .temperature(let t):
                kind = kind ?? "temperature"
                fields.append(("celsius", .double(t.degreesCelsius)))
            case .battery(let p):
                kind = kind ?? "battery"
                fields.append(("percent", .int(Int64(p.value))))
            }
            // The transmitter's own name for the reading (docs/reading-identity.md).
            if let stamp = reading.sensorStamp {
                fields += [("sensorTime", .int(stamp.count)), ("sensorRun", .string(stamp.run))]
            }
        }
        return [("kind", .string(kind ?? "unknown"))] + fields
    }

    static func transmitterJSON(_ device: DeviceID, _ peer: DeviceAddress?, _ event: TransmitterEvent) -> [JSON] {
        func one(_ name: String, _ extra: [(String, JSON)] = []) -> [JSON] { [.object(head(name, device, peer) + extra)] }
        switch event {
        case .connected: return one("connected")
        case .disconnected(let reason): return one("disconnected", [("reason", .string(reason))])
        case .bluetoothStateChanged(let state): return one("bluetooth", [("state", .string(stateWord(state)))] + reason(state))
        case .reading(let reading): return [.object(head("reading", device, peer) + readingFields([reading]))]  // drivers' readings arrive via `.readings`
        case .info(let info):
            var out: [JSON] = []
            if let battery = info.battery { out += one("battery", [("percent", .int(Int64(battery.value)))]) }
            var fields: [(String, JSON)] = []
            if let v = info.sensorState { fields.append(("sensorState", .string(v))) }
            if let v = info.sensorAge { fields.append(("sensorAgeSeconds", .double(v.seconds))) }
            if let v = info.bodySensorLocation { fields.append(("bodySensorLocation", .string("\(v)"))) }
            if let v = info.manufacturer { fields.append(("manufacturer", .string(v))) }
            if let v = info.model { fields.append(("model", .string(v))) }
            if let v = info.serialNumber { fields.append(("serialNumber", .string(v))) }
            if let v = info.firmware { fields.append(("firmware", .string(v))) }
            if let v = info.hardware { fields.append(("hardware", .string(v))) }
            if let v = info.software { fields.append(("software", .string(v))) }
            if !fields.isEmpty { out += one("info", fields) }
            return out
        case .needsPairing: return one("needs-pairing")
        case .paired: return []  // reported by the appliance with its SC flag
        case .pairingFailed(let reason): return one("pairing-failed", [("reason", .string(reason))])
        case .newSensorDetected: return one("new-sensor")
        case .sensorNotDetected: return one("no-sensor")
        case let .noData(_, duration): return one("no-data", [("seconds", .double(duration.seconds))])
        case .incompatible(let reason): return one("incompatible", [("reason", .string(reason))])
        case let .malformedValue(uuid, reason): return one("malformed-value", [("characteristic", .string("\(uuid)")), ("reason", .string(reason))])
        case let .operationFailed(operation, failure): return one("operation-failed", [("operation", .string("\(operation)")), ("reason", .string("\(failure)"))])
        case let .calibration(report):
            let outcome: [(String, JSON)] = switch report.outcome {
            case let .accepted(detail): [("accepted", .bool(true)), ("detail", .string(detail))]
            case let .notUsed(reason): [("accepted", .bool(false)), ("reason", .string(reason))]
            }
            return one("calibration", [("mgdl", .double(report.reference.milligramsPerDeciliter))] + outcome)
        }
    }

    /// A log line for people (and journald).
    public var logLine: String {
        switch self {
        case let .transmitter(device, peer, event): "\(device)\(peer.map { " (\($0.address))" } ?? ""): \(event)"
        case let .readings(device, _, readings): "\(device): " + readings.map { "\($0.value)" }.joined(separator: ", ")
        case let .connecting(device, peer): "\(device): connecting to \(peer)"
        case let .encrypted(device, _, bonded): "\(device): link encrypted\(bonded ? " with the bond" : "")"
        case let .paired(device, _, sc): "\(device): paired (\(sc ? "LE Secure Connections" : "LE legacy"))"
        case let .rememberedAddress(device, peer): "\(device): remembered as \(peer)"
        case let .ignoredValues(device, peer, attribute, count):
            "\(device)\(peer.map { " (\($0.address))" } ?? ""): ignored \(count == 1 ? "a value" : "\(count) values") on attribute "
                + "0x\(String(repeating: "0", count: max(0, 4 - String(attribute, radix: 16).count)) + String(attribute, radix: 16)), "
                + "which is no characteristic of its database"
        case let .driverState(device, state): "\(device): state saved (\(state.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")))"
        case .bluetooth(let state): "Bluetooth \(state)"
        case .alarm(let alarm): "ALARM \(alarm.kind.name): \(Self.words(for: alarm))"
        }
    }
}

extension ApplianceEvent {
    /// An alarm change for a person: "raised (high)", "snoozed for 15 min", "cleared".
    static func words(for alarm: AlarmEvent) -> String {
        func minutes(_ until: MonotonicInstant) -> String {
            let seconds = max(0, (until - alarm.time).components.seconds)
            return seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"
        }
        return switch alarm.change {
        case let .raised(priority): "raised (\(priority) priority)"
        case let .snoozed(until): "snoozed for \(minutes(until))"
        case let .acknowledged(until): "acknowledged for \(minutes(until))"
        case .escalated: "escalated"
        case .cleared: "cleared"
        case .reRaised: "sounding again"
        }
    }
}
