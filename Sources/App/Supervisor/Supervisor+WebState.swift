import Alarms
import Clocks
import Readings

/// The page's data, `GET /state.json` and every `state` event (docs/web.md "The page's data"),
/// and the Nightscout API's snapshot: both built from what the supervisor holds at the moment
/// of the request, never on the alarm path.
extension Supervisor {
    /// The page sees a day of glucose; the API up to the whole window (`Website.Recent.kept`).
    static let pageWindow = Duration.seconds(24 * 3600)

    /// When a sensor of this age reaches the life its type declares (`sensor-life-hours`, the
    /// same life the "sensor expiring" alarm counts to); nil when either is unknown.
    static func sensorEnds(age: Duration?, life: Duration?, wallNow: WallClockTime) -> WallClockTime? {
        guard let age, let life else { return nil }
        return wallNow + (life - age)
    }

    /// The `/state.json` document on one line, rendered once per turn however many ask.
    mutating func webState(at now: ClockReadings) -> String {
        if let rendered = website?.renderedState, rendered.at == now { return rendered.text }
        let text = renderWebState(at: now)
        website?.renderedState = (now, text)
        return text
    }

    func renderWebState(at now: ClockReadings) -> String {
        guard let website else { return "{}" }
        let clockSet = now.wall >= ApplianceAlarms.earliestBelievableTime
        func time(_ wall: WallClockTime) -> JSON { clockSet ? .int(wall.millisecondsSinceEpoch) : .null }
        func time(_ instant: MonotonicInstant) -> JSON { time(now.wall + (instant - now.monotonic)) }
        let engine = face?.alarms.engine
        let alarmConfiguration = engine?.configuration ?? AlarmConfiguration()
        let thresholds = alarmConfiguration.thresholds
        func mgdl(_ value: GlucoseConcentration?) -> JSON { value.map { .double($0.milligramsPerDeciliter) } ?? .null }

        var glucose = JSON.null
        if let latest = website.recent.latestGlucose, case let .glucose(value, trend) = latest.value {
            let staleAfter = alarmConfiguration.signalLossAfter
            glucose = .object([
                ("device", .string(latest.device.rawValue)), ("value", .double(value.milligramsPerDeciliter)),
                ("at", time(latest.wallTime)), ("direction", .string((trend ?? .none).nightscoutName)),
                ("ratePerMinute", Self.ratePerMinute(website.recent.readings).map(JSON.double) ?? .null),
                ("stale", .bool(now.wall - latest.wallTime > staleAfter)),
                ("staleAfterSeconds", .int(staleAfter.components.seconds)),
            ])
        }
        let since = now.wall - Self.pageWindow
        func points(_ kind: Reading.Kind) -> JSON {
            .array(website.recent.points(kind, since: since).map { .array([.int($0.0), .double($0.1)]) })
        }

        let active = StatusBoard.ordered(engine?.activeAlarms ?? [])
        let snoozeAllUntil = engine?.state.snoozeAllUntil.flatMap { $0 > now.monotonic ? $0 : nil }
        let alarms: [JSON] = active.map { alarm in
            .object([
                ("name", .string(alarm.kind.name)), ("title", .string(Website.title(of: alarm.kind))),
                ("priority", .string(alarm.priority.description)), ("status", .string(Website.status(of: alarm))),
                ("device", Self.device(of: alarm.kind).map(JSON.string) ?? .null), ("raisedAt", time(alarm.raisedAt)),
                ("snoozedUntil", alarm.status.snoozedUntilInstant.map(time) ?? .null),
                ("snoozeMinutes", .int((face?.actions.snooze(for: alarm.kind) ?? .zero).components.seconds / 60)),
                ("canAcknowledge", .bool(alarm.isSounding)), ("coveredBySnoozeAll", .bool(alarm.kind.isCoveredBySnoozeAll)),
            ])
        }
        var faults: [JSON] = active.compactMap { alarm in
            guard case let .fault(fault) = alarm.kind else { return nil }
            return .object([("name", .string(alarm.kind.name)), ("title", .string(Website.title(of: alarm.kind))),
                            ("detail", .string(Website.sentence(for: fault)))])
        }
        // A warning, not an alarm: the bedside alarms never wait on the upload.
        if let line = uploader?.status.fault(at: now.monotonic) {
            faults.append(.object([("name", "upload-failing"), ("title", "Nightscout upload failing"), ("detail", .string(line))]))
        }

        let status = website.board.snapshot(links: links(at: now.monotonic), alarms: [], history: nil,
                                            at: now.monotonic, wallNow: now.wall)
        var devices: [JSON] = [], others: [JSON] = []
        for device in status.devices {
            let newest = device.readings.map(\.age).min()
            devices.append(.object([
                ("id", .string(device.id.rawValue)), ("type", .string(device.kind)), ("link", .string(Website.word(for: device.link))),
                ("linkDetail", Website.detail(for: device.link).map(JSON.string) ?? .null),
                ("lastSeen", newest.map { time(now.wall - $0) } ?? .null),
                ("battery", device.battery.map { .int(Int64($0.level.value)) } ?? .null),
                ("sensorState", device.sensor?.state.map(JSON.string) ?? .null),
                ("sensorAgeSeconds", device.sensor?.age.map { .int($0.components.seconds) } ?? .null),
                ("sensorEnds", Self.sensorEnds(age: device.sensor?.age, life: alarmConfiguration.settings(for: device.id).sensorLife,
                                               wallNow: now.wall).map(time) ?? .null),
                // No driver says how long its warm-up lasts: the page shows the sensor's state.
                ("warmUpEnds", .null),
            ]))
            for reading in device.readings where reading.kind == .heartRate || reading.kind == .temperature || reading.kind == .humidity {
                others.append(.object([
                    ("device", .string(device.id.rawValue)), ("kind", .string(reading.kind.rawValue)),
                    ("value", .double(reading.value)), ("unit", .string(reading.unit)), ("at", time(now.wall - reading.age)),
                ]))
            }
        }

        var pendingRows = 0
        if case let .reopening(reopening, _) = history { pendingRows = reopening.waitingRows }
        return JSON.object([
            ("version", .string(VigilVersion.string)), ("now", time(now.wall)), ("clockSet", .bool(clockSet)),
            ("units", .string(website.configuration.units.rawValue)),
            ("mgdlPerMmol", .double(GlucoseConcentration.milligramsPerDeciliterPerMillimolePerLiter)),
            ("utcOffsetMinutes", .int(configuration.utcOffset.components.seconds / 60)),
            ("thresholds", .object([("urgentLow", mgdl(thresholds.urgentLow)), ("low", mgdl(thresholds.low)),
                                    ("high", mgdl(thresholds.high)), ("urgentHigh", mgdl(thresholds.urgentHigh))])),
            ("glucose", glucose), ("readings", points(.glucose)), ("meter", points(.meterGlucose)),
            ("alarms", .array(alarms)), ("snoozeAllUntil", snoozeAllUntil.map(time) ?? .null), ("faults", .array(faults)),
            ("devices", .array(devices)), ("others", .array(others)),
            ("history", .object([("open", .bool(historyIsOpen)), ("pendingRows", .int(Int64(pendingRows)))])),
            ("upload", uploader.map { uploader in
                let upload = uploader.status
                return .object([
                    ("queued", .int(Int64(upload.queued))), ("oldest", upload.oldest.map(time) ?? .null),
                    ("lastSuccess", upload.lastSuccess.map(time) ?? .null), ("failing", .bool(upload.failingSince != nil)),
                    ("lastFailure", upload.lastFailure.map(JSON.string) ?? .null),
                    ("lastFailureAt", upload.lastFailureAt.map(time) ?? .null), ("refused", .bool(upload.refused)),
                    ("droppedUnsent", .int(Int64(upload.droppedUnsent))), ("rejected", .int(Int64(upload.rejected))),
                ])
            } ?? .null),
        ]).rendered
    }

    /// The history opened: the page's window filled from it, so a restart does not empty the
    /// chart (only with the page on, and a clock that can say what "4 days ago" is).
    mutating func loadRecentGlucose(at now: ClockReadings) {
        guard website != nil, now.wall >= ApplianceAlarms.earliestBelievableTime else { return }
        actions.append(.loadRecentGlucose(since: now.wall - Website.Recent.kept))
    }

    /// The Nightscout API's view of the same data.
    func nightscoutSnapshot(at now: ClockReadings) -> Nightscout.Snapshot {
        guard let website else { return Nightscout.Snapshot(now: now.wall) }
        let status = website.board.snapshot(links: [], alarms: [], history: nil, at: now.monotonic, wallNow: now.wall)
        let batteries = status.devices.compactMap { device in
            device.battery.map { Nightscout.DeviceReport(device: device.id, battery: $0.level, reportedAt: now.wall - $0.age) }
        }
        return Nightscout.Snapshot(now: now.wall, readings: website.recent.readings, devices: batteries,
                                   thresholds: face?.alarms.engine.configuration.thresholds ?? .standard,
                                   units: website.configuration.units, utcOffset: configuration.utcOffset)
    }

    /// mg/dL per minute between the newest sensor glucose and the one before it, when they
    /// are of one device and at most 15 minutes apart; nil otherwise.
    static func ratePerMinute(_ readings: [RecordedReading]) -> Double? {
        let glucose = readings.suffix(64).filter { $0.kind == .glucose }
        guard glucose.count >= 2 else { return nil }
        let (a, b) = (glucose[glucose.count - 2], glucose[glucose.count - 1])
        guard a.device == b.device, case let .glucose(first, _) = a.value, case let .glucose(second, _) = b.value else { return nil }
        let minutes = Double((b.wallTime - a.wallTime).components.seconds) / 60
        guard minutes > 0, minutes <= 15 else { return nil }
        return ((second.milligramsPerDeciliter - first.milligramsPerDeciliter) / minutes * 10).rounded() / 10
    }

    /// The device an alarm is about, if it is about one.
    static func device(of kind: AlarmKind) -> String? {
        switch kind {
        case let .signalLoss(device), let .device(_, device): device.rawValue
        case .glucose, .fault: nil
        }
    }
}

extension ActiveAlarm.Status {
    /// Until when a snooze or an acknowledgement silences the alarm.
    var snoozedUntilInstant: MonotonicInstant? {
        if case let .snoozed(until) = self { until } else { nil }
    }
}
