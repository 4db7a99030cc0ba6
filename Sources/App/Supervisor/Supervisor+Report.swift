import Alarms
import Clocks
import Readings

/// After every input: the appliance's events recorded, shown to the alarms, announced (stdout,
/// the log, `vigil status`) and saved where they change a state file; the face's outputs and
/// status line handed on.
extension Supervisor {
    mutating func report(at now: ClockReadings) {
        // Whatever called this may have changed what the page shows.
        website?.renderedState = nil
        // Before anything is dated by this pair of readings: a step of the clock between the
        // last pair and this one is then known before a row is dated on the new clock.
        watchClock(now)
        checkFace(at: now.monotonic)
        let direct = appliance.takeEvents()
        for event in direct { noteDirectGlucose(event, at: now) }
        var events = direct + takeFollowerEvents()
        for event in events { recordReadings(of: event, at: now) }
        if face != nil {
            let faceNow = at(now.monotonic)
            for event in events { face?.observe(event, monotonicNow: faceNow, wallNow: now.wall) }
            let alarmEvents = face?.takeAlarmEvents() ?? []
            record(.alarms(alarmEvents, monotonicNow: now.monotonic, wallNow: now.wall))
            events += alarmEvents.map(ApplianceEvent.alarm)
        }
        for event in events { announce(event, at: now) }
        // Taken in at the end of the turn (`pushWebState`): nothing for the page on the alarm path.
        if !events.isEmpty, website != nil { website!.pendingEvents += events.map { ($0, now) } }
        guard let face else { return }
        // Snoozes and quiet reminders change the state without an event: save on change. A
        // storage fault the save raises or clears is reported when its answer comes.
        if face.alarms.engine.state != savedAlarmState {
            savedAlarmState = face.alarms.engine.state
            save(.alarmState(face.alarms.engine.state, at: now.monotonic))
        }
        flushFace(at: now)
    }

    private mutating func announce(_ event: ApplianceEvent, at now: ClockReadings) {
        actions.append(.observe(event))
        switch configuration.eventOutput {
        case .json:
            for line in event.json(monotonicNow: now.monotonic, wallNow: now.wall) { actions.append(.print(line.rendered)) }
        case .console:
            actions.append(.print(event.logLine))
        case .none:
            break
        }
        switch event {
        case .readings, .transmitter(_, _, .info):
            log(.info, event.logLine)
        case .rememberedAddress:
            log(.notice, event.logLine)
            save(.rememberedTransmitters(appliance.remembered))
        case .driverState(let device, let values):
            log(.info, event.logLine)
            driverStates[device] = values
            save(.driverStates(driverStates))
        case .alarm:
            // On the console the line is already on the screen; the journal needs it loud.
            log(configuration.eventOutput == .console ? .info : .warning, event.logLine)
        case .bluetooth(.unavailable), .transmitter(_, _, .noData), .transmitter(_, _, .pairingFailed),
             .transmitter(_, _, .incompatible), .transmitter(_, _, .malformedValue):
            log(.warning, event.logLine)
        case .transmitter(_, _, .calibration(let report)):
            // A fingerstick the person took that was not used: they need to know.
            log(report.isAccepted ? .notice : .warning, event.logLine)
        default:
            log(.notice, event.logLine)
        }
    }

    /// The readings of an event (and a calibration a transmitter accepted), dated by the pair
    /// of clock readings given. A reading the transmitter dated on its own calendar clock (a
    /// meter's records) is stored without a reception instant: the board's clock being set
    /// later re-dates what the board's clock dated, never what the meter's did.
    private mutating func recordReadings(of event: ApplianceEvent, at now: ClockReadings) {
        if case let .transmitter(device, _, .calibration(report)) = event, report.isAccepted {
            record(.calibration(device: device, glucose: report.reference,
                                wallTime: now.wall - (now.monotonic - report.takenAt), receivedAt: now.monotonic))
            return
        }
        if case let .transmitter(device, _, .info(info)) = event, let level = info.battery { recordBattery(level, of: device, at: now) }
        guard case let .readings(device, _, readings) = event else { return }
        var boardDated: [RecordedReading] = [], ownClock: [RecordedReading] = []
        let followed = isFollower(device)
        for (reading, var row) in zip(readings, event.recordedReadings(monotonicNow: now.monotonic, wallNow: now.wall)) {
            if followed { row.origin = .followed }
            if case .wallClock = reading.time { ownClock.append(row) } else { boardDated.append(row) }
        }
        if !boardDated.isEmpty { record(.readings(boardDated, receivedAt: now.monotonic)) }
        if !ownClock.isEmpty { record(.readings(ownClock, receivedAt: nil)) }
    }

    /// With the upload on, a device's battery percentage is kept in the history when it
    /// changes (at the first report of a run too): the queue sends it as Nightscout device
    /// status (docs/nightscout-upload.md "What is sent"). A thermometer repeats its level in
    /// every advertisement; only a change is a row.
    private mutating func recordBattery(_ level: Percent, of device: DeviceID, at now: ClockReadings) {
        guard uploader != nil, batteryRecorded[device] != level else { return }
        batteryRecorded[device] = level
        record(.readings([RecordedReading(device: device, value: .battery(level), wallTime: now.wall)], receivedAt: now.monotonic))
    }

    /// Line writes to the device; button outcomes to the log; the status line refreshed.
    private mutating func flushFace(at now: ClockReadings) {
        guard var face else { return }
        let outputs = face.takeOutputs()
        let status = FaceStatus.line(for: face.alarms.engine.activeAlarms, at: now.monotonic)
        self.face = face
        for output in outputs {
            switch output {
            case let .face(timed):
                actions.append(.face(timed.output, at: timed.at))
            case .exportRequested:
                exportToUSB(at: now)
            case let .nothingToSilence(gesture, _):
                log(.notice, "button: \(gesture) press, nothing sounding to silence")
            }
        }
        if status != lastStatus {
            lastStatus = status
            actions.append(.showStatus(status))
            notify(["STATUS=" + status])
        }
    }
}
