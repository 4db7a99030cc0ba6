import Alarms
import Clocks
import Readings

extension ApplianceStatus {
    /// For a person over SSH: one line per fact, indented under its device, every age in
    /// words ("3 min ago"), times in UTC as the history and logs print them.
    public var text: String {
        var lines = ["Vigil \(version), up \(Self.words(uptime))"]
        lines.append("controller: " + Self.words(controller))
        lines.append(devices.isEmpty ? "devices: none configured" : "devices:")
        for device in devices {
            lines.append("  \(device.id) (\(device.kind)): \(Self.words(device.link))" + (device.address.map { ", \($0)" } ?? ""))
            for reading in device.readings {
                lines.append("    \(reading.kind.rawValue) \(Self.number(reading.value)) \(reading.unit)"
                             + (reading.detail.map { " (\($0))" } ?? "") + ", \(Self.ago(reading.age))")
            }
            if let battery = device.battery { lines.append("    battery \(battery.level.value) %, \(Self.ago(battery.age))") }
            if let sensor = device.sensor {
                let parts = [sensor.state.map { "sensor \($0)" } ?? "sensor", sensor.age.map { "\(Self.words($0)) old" }].compactMap { $0 }
                lines.append("    " + parts.joined(separator: ", ") + " (reported \(Self.ago(sensor.reportedAgo)))")
            }
            if device.readings.isEmpty && device.battery == nil { lines.append("    no reading yet") }
        }
        lines.append(alarms.isEmpty ? "alarms: none" : "alarms:")
        for alarm in alarms { lines.append("  " + Self.words(alarm)) }
        lines.append(faults.isEmpty ? "faults: none" : "faults:")
        for fault in faults { lines.append("  " + Self.words(fault)) }
        if let history {
            lines.append("history: \(history.path), \(history.pendingRows) row\(history.pendingRows == 1 ? "" : "s") waiting to be written")
        } else {
            lines.append("history: not kept")
        }
        switch web {
        case nil: lines.append("web: off")
        case let .serving(url)?: lines.append("web: serving \(url)")
        case let .notServed(reason)?: lines.append("web: not served: \(reason)")
        }
        lines.append(upload.map { Self.words($0, at: time) } ?? "nightscout: off")
        return lines.joined(separator: "\n") + "\n"
    }

    /// For scripts: one object. Field names are a contract, like `--events-json`'s; durations
    /// are in seconds (`...Seconds`), times ISO 8601 UTC.
    public var json: JSON {
        var members: [(String, JSON)] = [
            ("version", .string(version)), ("uptimeSeconds", Self.seconds(uptime)), ("time", .string(time.iso8601)),
            ("controller", Self.json(controller)),
            ("devices", .array(devices.map(Self.json))),
            ("alarms", .array(alarms.map(Self.json))),
            ("faults", .array(faults.map(Self.json))),
        ]
        members.append(("history", history.map { .object([("path", .string($0.path)), ("pendingRows", .int(Int64($0.pendingRows)))]) } ?? .null))
        members.append(("web", web.map {
            switch $0 {
            case let .serving(url): .object([("serving", .bool(true)), ("url", .string(url))])
            case let .notServed(reason): .object([("serving", .bool(false)), ("reason", .string(reason))])
            }
        } ?? .null))
        members.append(("upload", upload.map { upload in
            let status = upload.status
            return .object([
                ("queued", .int(Int64(status.queued))), ("oldest", status.oldest.map { .string($0.iso8601) } ?? .null),
                ("lastSuccess", status.lastSuccess.map { .string($0.iso8601) } ?? .null), ("failing", .bool(status.failingSince != nil)),
                ("lastFailure", status.lastFailure.map(JSON.string) ?? .null),
                ("lastFailureAt", status.lastFailureAt.map { .string($0.iso8601) } ?? .null), ("refused", .bool(status.refused)),
                ("droppedUnsent", .int(Int64(status.droppedUnsent))), ("rejected", .int(Int64(status.rejected))),
                ("fault", upload.fault.map(JSON.string) ?? .null),
            ])
        } ?? .null))
        return .object(members)
    }

    /// "nightscout: 12 waiting (the oldest 3 h ago), last sent 2 min ago; failing: ..."
    static func words(_ upload: Upload, at now: WallClockTime) -> String {
        let status = upload.status
        var line = "nightscout: \(status.queued) waiting"
        if status.queued > 0, let oldest = status.oldest { line += " (the oldest \(ago(now - oldest)))" }
        line += ", last sent " + (status.lastSuccess.map { ago(now - $0) } ?? "never")
        if status.failingSince != nil, let failure = status.lastFailure { line += "; failing: \(failure)" }
        if status.droppedUnsent > 0 { line += "; \(status.droppedUnsent) reached the end of their retention unsent" }
        if status.rejected > 0 { line += "; \(status.rejected) refused by the site and dropped" }
        if let fault = upload.fault { line += "\n  warning: \(fault)" }
        return line
    }

    // MARK: words

    static func words(_ controller: Controller) -> String {
        switch controller {
        case let .up(d): "up for \(words(d))"
        case let .neverUp(reason): "never up" + (reason.map { " (\($0))" } ?? " yet")
        case let .lost(reason, lostAgo): "lost \(ago(lostAgo)) (\(reason)); reopening"
        }
    }

    static func words(_ link: Link) -> String {
        switch link {
        case .searching: "searching"
        case let .waitingToReconnect(d): "waiting to reconnect (in \(words(d)))"
        case let .waitingForNextReading(d): "waiting for the next reading (in \(words(d)))"
        case .connecting: "connecting"
        case .securingTheLink: "securing the link"
        case .discoveringServices: "discovering services"
        case let .connected(d): d.map { "connected for \(words($0))" } ?? "connected"
        case .listeningForAdvertisements: "listening for advertisements"
        case let .reachingServer(service): "reaching \(service)"
        case let .following(service): "following \(service) (reachable)"
        case let .serverUnreachable(service, reason): "\(service) unreachable: \(reason)"
        case let .serverRefused(service, reason): "\(service) refused: \(reason)"
        }
    }

    static func words(_ alarm: Alarm) -> String {
        let state = switch alarm.state {
        case .sounding: "SOUNDING"
        case .escalated: "SOUNDING, escalated"
        case let .snoozed(until, remaining): "snoozed until \(until.iso8601) (\(words(remaining)) left)"
        case .waitingForFreshData: "snooze over, waiting for fresh data"
        case .noted: "noted, quiet"
        }
        return "\(alarm.name) (\(alarm.priority) priority): \(state), since \(alarm.since.iso8601) (\(words(alarm.age)))"
    }

    static func ago(_ d: Duration) -> String { d < .seconds(1) ? "just now" : "\(words(d)) ago" }

    /// Two units at most, rounded down: "45 s", "3 min 20 s", "2 h 5 min", "3 d 4 h".
    public static func words(_ d: Duration) -> String {
        let s = max(0, d.components.seconds)
        switch s {
        case ..<60: return "\(s) s"
        case ..<3600: return s % 60 == 0 ? "\(s / 60) min" : "\(s / 60) min \(s % 60) s"
        case ..<86400: return s / 60 % 60 == 0 ? "\(s / 3600) h" : "\(s / 3600) h \(s / 60 % 60) min"
        default: return s / 3600 % 24 == 0 ? "\(s / 86400) d" : "\(s / 86400) d \(s / 3600 % 24) h"
        }
    }

    /// Whole numbers without a fraction, a sensor's decimal as sent, computed values to two
    /// places (`DecimalText`): "72", "4.25", "812.5", "53.4925".
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "?" }
        return DecimalText.text(value)
    }

    // MARK: JSON

    static func seconds(_ d: Duration) -> JSON { .int(d.components.seconds) }

    static func json(_ controller: Controller) -> JSON {
        switch controller {
        case let .up(d): .object([("state", "up"), ("upSeconds", seconds(d))])
        case let .neverUp(reason): .object([("state", "never-up"), ("reason", reason.map(JSON.string) ?? .null)])
        case let .lost(reason, ago): .object([("state", "lost"), ("reason", .string(reason)), ("lostSecondsAgo", seconds(ago))])
        }
    }

    static func json(_ device: Device) -> JSON {
        var members: [(String, JSON)] = [("id", .string(device.id.rawValue)), ("kind", .string(device.kind))]
        let (word, extra): (String, [(String, JSON)]) = switch device.link {
        case .searching: ("searching", [])
        case let .waitingToReconnect(d): ("waiting-to-reconnect", [("reconnectInSeconds", seconds(d))])
        case let .waitingForNextReading(d): ("waiting-for-next-reading", [("reconnectInSeconds", seconds(d))])
        case .connecting: ("connecting", [])
        case .securingTheLink: ("securing", [])
        case .discoveringServices: ("discovering", [])
        case let .connected(d): ("connected", d.map { [("connectedSeconds", seconds($0))] } ?? [])
        case .listeningForAdvertisements: ("listening", [])
        case let .reachingServer(service): ("reaching-server", [("service", .string(service))])
        case let .following(service): ("following", [("service", .string(service))])
        case let .serverUnreachable(service, reason): ("server-unreachable", [("service", .string(service)), ("failure", .string(reason))])
        case let .serverRefused(service, reason): ("server-refused", [("service", .string(service)), ("failure", .string(reason))])
        }
        members.append(("state", .string(word)))
        members += extra
        members.append(("address", device.address.map(JSON.string) ?? .null))
        members.append(("readings", .array(device.readings.map { reading in
            var fields: [(String, JSON)] = [("kind", .string(reading.kind.rawValue)), ("value", .double(reading.value)), ("unit", .string(reading.unit))]
            if let detail = reading.detail { fields.append(("detail", .string(detail))) }
            fields.append(("ageSeconds", seconds(reading.age)))
            return .object(fields)
        })))
        members.append(("battery", device.battery.map { .object([("percent", .int(Int64($0.level.value))), ("ageSeconds", seconds($0.age))]) } ?? .null))
        members.append(("sensor", device.sensor.map { sensor in
            .object([("state", sensor.state.map(JSON.string) ?? .null), ("ageSeconds", sensor.age.map(seconds) ?? .null),
                     ("reportedSecondsAgo", seconds(sensor.reportedAgo))])
        } ?? .null))
        return .object(members)
    }

    static func json(_ alarm: Alarm) -> JSON {
        var members: [(String, JSON)] = [("alarm", .string(alarm.name)), ("priority", .string("\(alarm.priority)"))]
        switch alarm.state {
        case .sounding: members.append(("state", "sounding"))
        case .escalated: members.append(("state", "escalated"))
        case let .snoozed(until, remaining):
            members += [("state", "snoozed"), ("snoozedUntil", .string(until.iso8601)), ("snoozedSeconds", seconds(remaining))]
        case .waitingForFreshData: members.append(("state", "waiting-for-fresh-data"))
        case .noted: members.append(("state", "noted"))
        }
        members += [("since", .string(alarm.since.iso8601)), ("ageSeconds", seconds(alarm.age))]
        return .object(members)
    }
}
