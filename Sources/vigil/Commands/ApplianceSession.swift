import Alarms
import App
import Clocks
import History
import Host
import Platform
import Readings
import Transmitters

/// `vigil run` and `vigil demo` as a host session: the appliance, its alarms shown on the face
/// (buzzer, LED, button), its events printed for scripts (`--events-json`) or logged, and
/// remembered transmitters and alarm state saved as they change.
struct ApplianceSession: HostSession {
    var appliance: Appliance
    /// The alarm engine joined to the face; nil runs without alarms.
    var face: ApplianceFace<ApplianceAlarms>?
    /// The buzzer, LED and button; nil when the face has no hardware (backend "none"), or
    /// its hardware could not be had (`faceOpener`): the alarms still run, are logged and kept
    /// in the state directory.
    var device: (any FaceDevice)?
    /// Opens the face's hardware (GPIO) again when it is missing or failing, at
    /// `nextFaceOpen` (ApplianceSession+Face); nil for a face that is not hardware.
    var faceOpener: (() -> (any FaceDevice)?)?
    var nextFaceOpen: MonotonicInstant?
    /// The face's failure as the alarms last heard it: the face fault is raised while set.
    var faceFailureReported: String?
    let eventsJSON: Bool
    /// Print each event as a line for a person watching (the demo's console face).
    var console = false
    /// How a line reaches the terminal: the console face prints it above its status line.
    var printLine: (String) -> Void = { print($0) }
    let logger: Logger
    /// Where remembered transmitter addresses are saved; nil for the demo.
    let state: StateDirectory?
    var exitCode: Int32 = 0
    /// Every driver's saved state, written whole when one changes.
    var driverStates: [DeviceID: [String: String]] = [:]
    var isFinished: Bool { false }
    /// The alarm state last written, so it is written again only when it changes.
    private var savedAlarmState: AlarmEngine.State?
    var nextClockCheck: MonotonicInstant?
    var lastStatus = ""
    private var startupCodeDropped = false
    /// The rolling history (issue 5); nil when it cannot be opened (the storage fault sounds).
    var history: HistoryStore?
    /// What storage lost for good in this run (ApplianceSession+Storage): the storage fault
    /// stays raised while anything is here.
    var storageLosses: Set<StorageLoss> = []
    /// Rows kept in memory at most while the history cannot take them; past it the oldest are
    /// dropped (a loss: the storage fault stays for the run).
    var historyRowLimit = HistoryStore.defaultPendingLimit
    /// A history that could not be opened, tried again with backoff; what arrives waits here.
    var historyReopening: HistoryReopening?
    /// The attempt running on its own thread (`reopenHistoryIfDue`); nil between attempts.
    var historyOpening: BackgroundJob<HistoryOpening.Opened>?
    /// For tests: each attempt waits this long first, as on a slow card (`--history-open-delay`).
    var historyOpenDelay: Duration?
    /// What failed at its last write (ApplianceSession+Storage): the storage fault stands
    /// while anything is here, and the state files in it are saved again every 10 s.
    var failingStorage: Set<StoredState> = []
    var nextSaveRetry: MonotonicInstant?
    /// Clock steps that set the clock and are not applied to the history yet: it was not open
    /// (applied once it opens), or the re-date failed (tried again with the state files).
    var clockStepsNotApplied: [ClockJump] = []
    /// Makes the serial export (`[export] serial`) once there is a history to export: at start,
    /// or when a history that could not be opened opens.
    var serialExportAwaitingHistory: ((HistoryStore) -> SerialExportServer)?
    /// The serial export protocol on a tty (`[export] serial`); nil when not configured.
    var serialExport: SerialExportServer?
    /// `vigil status` answered on a unix socket (issue 6); nil when off (`[status] socket = ""`).
    var statusServer: StatusServer?
    /// Where the double press writes its bundle (`[export] usb`); nil when not configured.
    var usbMountPoint: String?
    /// The bundle being written on its own thread (ApplianceSession+USBExport); nil when none is.
    var usbExportJob: BackgroundJob<USBExport.Result>?
    var utcOffset: Duration = .zero
    var clockWatch = WallClockWatch(earliestBelievable: ApplianceAlarms.earliestBelievableTime)
    /// The monotonic half of the last pair of clock readings the watch saw (`watchClock`).
    var clockWatchedAt: MonotonicInstant?
    /// The history's dropped rows already said (`HistoryStore.droppedTotal`).
    private var readingsDroppedSaid = 0
    /// When old rows are next pruned (`prune`); nil: at the first turn with a history.
    private var nextPrune: MonotonicInstant?
    /// The face's time never goes back: a button edge stamped by the kernel a moment before
    /// the face last ran is fed at that later time.
    private var faceTime: MonotonicInstant?
    /// systemd's notification socket (issue 6); nil when not run by a Type=notify unit.
    var notifier: SystemdNotifier?
    private var notifiedReady = false
    private var nextWatchdog: MonotonicInstant?
    private var notifyFailureLogged = false

    init(appliance: Appliance, eventsJSON: Bool, logger: Logger, state: StateDirectory?) {
        self.appliance = appliance
        self.eventsJSON = eventsJSON
        self.logger = logger
        self.state = state
        if let shift = state?.loadClockShift(), shift != .zero {
            clockWatch = WallClockWatch(earliestBelievable: ApplianceAlarms.earliestBelievableTime, unexplainedShift: shift)
            logger.log(.notice, "the wall clock stepped by \(shift) in an earlier run; retention ages rows by the clock as it ran before")
        }
    }

    var nextDeadline: MonotonicInstant? {
        earliest(appliance.nextDeadline, face?.nextDeadline, device?.nextDeadline, face == nil ? nil : nextClockCheck,
                 serialExport?.nextDeadline, statusServer?.nextDeadline, nextFaceCheck, nextSaveRetry,
                 historyOpening == nil ? historyReopening?.nextAttempt : nil,  // while one runs, its descriptor wakes the loop
                 history.map { _ in nextPrune ?? .zero },  // only with a history: it is what `endOfTurn` prunes
                 notifier?.watchdogInterval.map { _ in nextWatchdog ?? .zero })  // the first feed: due at once
    }

    var descriptors: [Int32] {
        (device?.descriptors ?? []) + (serialExport?.descriptors ?? []) + (statusServer?.descriptors ?? [])
            + (usbExportJob.map { [$0.descriptor] } ?? []) + (historyOpening.map { [$0.descriptor] } ?? [])
    }

    /// An export still being sent on the serial port, a status answer on its socket: poll says
    /// when they take more, so a slow reader costs no wake-ups.
    var writeInterest: [Int32] {
        (serialExport?.wantsToWrite == true ? serialExport?.descriptors ?? [] : []) + (statusServer?.writeDescriptors ?? [])
    }

    mutating func writable(_ descriptor: Int32, host: inout Host, at now: MonotonicInstant) {
        if let serialExport, serialExport.descriptors.contains(descriptor) {
            serialExport.writable(descriptor, at: now)
        } else if let statusServer, statusServer.writeDescriptors.contains(descriptor) {
            statusServer.writable(at: now)
        }
    }

    mutating func controllerReady(host: inout Host, at now: MonotonicInstant) {
        appliance.controllerReady(host: &host, at: now)
        report()
        // Ready means the radio works: only a controller that answered makes Vigil useful.
        if !notifiedReady {
            notifiedReady = true
            notify(["READY=1", "STATUS=" + (lastStatus.isEmpty ? "watching" : lastStatus)])
        }
        if !startupCodeDropped {
            // Start-up is over: argument parsing, configuration, board profiles and bring-up
            // never run again; their code pages need not stay mapped (see CodePages).
            startupCodeDropped = true
            do { try CodePages.dropStartupCode() } catch { logger.log(.info, "\(error)") }
        }
    }

    mutating func handle(_ event: Host.Event, host: inout Host, at now: MonotonicInstant) {
        appliance.handle(event, host: &host, at: now)
        report()
    }

    mutating func handleDeadline(host: inout Host, at now: MonotonicInstant) {
        appliance.handleDeadline(host: &host, at: now)
        if let device { feed(device.dueEdges(at: now)) }
        let faceNow = at(now)
        face?.handleDeadline(at: faceNow)
        if face != nil, nextClockCheck.map({ now >= $0 }) ?? true {
            let wallNow = SystemClock.wallNow()
            face?.update(at: faceNow) { $0.checkClock(wallNow: wallNow, at: faceNow) }
            nextClockCheck = now + .seconds(60)
        }
        // Fed from the loop's own deadlines: a hung loop stops the feeding and systemd restarts us.
        if let interval = notifier?.watchdogInterval, nextWatchdog.map({ now >= $0 }) ?? true {
            notify(["WATCHDOG=1"])
            nextWatchdog = now + interval
        }
        report()
    }

    mutating func readable(_ descriptor: Int32, host: inout Host, at now: MonotonicInstant) {
        if let serialExport, serialExport.descriptors.contains(descriptor) {
            serialExport.readable(descriptor, at: now, wallNow: SystemClock.wallNow())
            return
        }
        if let statusServer, statusServer.descriptors.contains(descriptor) {
            statusServer.readable(descriptor, at: now) { statusAnswer($0, board: statusServer.board, at: now) }
            return
        }
        if let job = usbExportJob, descriptor == job.descriptor {
            usbExportJob = nil
            if let result = job.finish() { answerUSBExport(result) }
            report()
            return
        }
        if let job = historyOpening, descriptor == job.descriptor {
            historyOpening = nil
            if let opened = job.finish() { historyOpened(opened.result, at: now) }
            report()
            return
        }
        guard let device else { return }
        feed(device.readButton(descriptor, at: now))
        report()
    }

    /// The history's one transaction per turn; a clock step re-dates what the unset clock
    /// dated; old rows pruned a little at a time. A failed commit keeps the rows in memory
    /// (bounded) and sounds the storage fault until a commit succeeds again.
    mutating func endOfTurn(at now: MonotonicInstant) {
        if let serialExport {
            if let due = serialExport.nextDeadline, now >= due { serialExport.handleDeadline(at: now) }
            if serialExport.wantsToWrite, let fd = serialExport.descriptors.first { serialExport.writable(fd, at: now) }
        }
        statusServer?.endOfTurn(at: now)
        retryFailedSaves(at: now)
        noteUnreadableStateFiles(at: now)
        guard history != nil || historyReopening != nil else { return }
        let wallNow = SystemClock.wallNow()
        if watchClock(monotonic: SystemClock.monotonicNow(), wall: wallNow) {
            report()  // a storage fault raised just now is announced and shown this turn
        }
        guard let history else {
            reopenHistoryIfDue(at: now)
            return
        }
        if history.pendingCount > 0 {
            let outcome = history.commit()
            // Whatever this commit did: rows may be dropped in the very turn writing works again.
            if history.droppedTotal > readingsDroppedSaid {
                logger.log(.error, "history: \(history.droppedTotal - readingsDroppedSaid) older readings did not fit in memory while it could not be written, and are lost")
                readingsDroppedSaid = history.droppedTotal
                lost(.readingsDropped, at: now)
            }
            switch outcome {
            case .nothingPending:
                break
            case .committed:
                stored(.history, true, at: now)
            case let .failed(error, pending, _):
                logger.log(.error, "history: cannot write (\(error)); \(pending) rows kept in memory")
                stored(.history, false, at: now)
            }
            report()
        }
        if nextPrune.map({ now >= $0 }) ?? true { prune(history, at: now, wallNow: wallNow) }
    }

    /// How often old rows are pruned, a budget of rows at a time; sooner while the last
    /// budget ran out (a history over its cap after an upgrade, a clock set a year ahead).
    static let pruneInterval = Duration.seconds(600)
    static let pruneCatchUpInterval = Duration.seconds(30)

    /// Deletes rows past their retention or the size cap. One that fails is the storage
    /// fault, tried again every `saveRetryInterval`: the cap is what keeps a card shared with
    /// the system from filling up, and nothing else would say it is not kept.
    private mutating func prune(_ history: HistoryStore, at now: MonotonicInstant, wallNow: WallClockTime) {
        let wasFailing = failingStorage.contains(.historyRetention)
        do {
            // Aged on the clock as it ran before any step ahead: a jump must not delete a day.
            let outcome = try history.prune(now: clockWatch.retentionTime(wall: wallNow), policy: Self.retention)
            logger.log(.debug, "history: pruned \(outcome)")
            nextPrune = now + (outcome.finished ? Self.pruneInterval : Self.pruneCatchUpInterval)
            if wasFailing { logger.log(.notice, "history: pruning works again") }
            stored(.historyRetention, true, at: now)
        } catch {
            logger.log(.error, "history: pruning failed: \(error); old rows are kept and the size cap is not enforced; tried again in \(Self.saveRetryInterval)")
            nextPrune = now + Self.saveRetryInterval
            stored(.historyRetention, false, at: now)
        }
        if wasFailing != failingStorage.contains(.historyRetention) { report() }
    }

    /// The standard retention (365 days of glucose, 30 of heart rate) with a 1 GiB cap: an SD
    /// card shared with the system must never fill up with heart beats. Rows dated before the
    /// clock was believable are not aged (their re-date may have been missed).
    static let retention = RetentionPolicy(keep: RetentionPolicy.standard.keep, otherRows: RetentionPolicy.standard.otherRows,
                                           maximumBytes: 1 << 30, unsetClockBefore: ApplianceAlarms.earliestBelievableTime)

    /// Buzzer and LED off, lines released, the terminal restored, the history's last rows written.
    func close() {
        do { try notifier?.send(["STOPPING=1"]) } catch { logger.log(.warning, "systemd notification: \(error)") }
        stopUSBExport()
        device?.close()
        serialExport?.close()
        statusServer?.close()
        if let history, history.pendingCount > 0, case let .failed(error, pending, _) = history.commit() {
            logger.log(.error, "history: \(pending) rows could not be written at exit: \(error)")
        }
        if let historyReopening = finishHistoryOpeningAtExit(), historyReopening.waitingRows > 0 {
            logger.log(.error, "history: \(historyReopening.waitingRows) rows that waited for \(historyReopening.path) to open are lost at exit")
        }
    }

    private mutating func feed(_ edges: [TimedButtonEdge]) {
        for edge in edges {
            logger.log(.debug, "button \(edge.edge) at \(edge.at)")
            let t = at(edge.at)
            face?.receive(edge.edge, at: t)
        }
    }

    /// `now` for the face, never earlier than what it has seen.
    mutating func at(_ now: MonotonicInstant) -> MonotonicInstant {
        let t = max(now, faceTime ?? now)
        faceTime = t
        return t
    }

    mutating func report() {
        let now = SystemClock.monotonicNow()
        let wallNow = SystemClock.wallNow()
        // Before anything is dated by this pair of readings: a step of the clock between the
        // last pair and this one is then known before a row is dated on the new clock.
        watchClock(monotonic: now, wall: wallNow)
        checkFace(at: now)
        var events = appliance.takeEvents()
        for event in events { recordReadings(of: event, monotonicNow: now, wallNow: wallNow) }
        if face != nil {
            let faceNow = at(now)
            for event in events { face?.observe(event, monotonicNow: faceNow, wallNow: wallNow) }
            let alarmEvents = face?.takeAlarmEvents() ?? []
            record(.alarms(alarmEvents, monotonicNow: now, wallNow: wallNow))
            events += alarmEvents.map(ApplianceEvent.alarm)
        }
        for event in events {
            statusServer?.board.observe(event, at: now)
            if eventsJSON {
                for line in event.json(monotonicNow: now, wallNow: wallNow) { print(line.rendered) }
            } else if console {
                printLine(event.logLine)
            }
            switch event {
            case .readings, .transmitter(_, _, .info):
                logger.log(.info, event.logLine)
            case .rememberedAddress:
                logger.log(.notice, event.logLine)
                stored(.rememberedTransmitters, state?.saveRemembered(appliance.remembered), at: now)
            case .driverState(let device, let values):
                logger.log(.info, event.logLine)
                driverStates[device] = values
                stored(.driverStates, state?.saveDriverStates(driverStates), at: now)
            case .alarm:
                // On the console the line is already on the screen; the journal needs it loud.
                logger.log(console ? .info : .warning, event.logLine)
            case .bluetooth(.unavailable), .transmitter(_, _, .noData), .transmitter(_, _, .pairingFailed),
                 .transmitter(_, _, .incompatible), .transmitter(_, _, .malformedValue):
                logger.log(.warning, event.logLine)
            case .transmitter(_, _, .calibration(let report)):
                // A fingerstick the person took that was not used: they need to know.
                logger.log(report.isAccepted ? .notice : .warning, event.logLine)
            default:
                logger.log(.notice, event.logLine)
            }
        }
        if let face {
            // Snoozes and quiet reminders change the state without an event: save on change.
            if face.alarms.engine.state != savedAlarmState {
                savedAlarmState = face.alarms.engine.state
                stored(.alarmState, state?.saveAlarmState(face.alarms.engine.state, at: now), at: now)
                // A storage fault raised or cleared just now is an event of its own.
                let storageEvents = self.face?.takeAlarmEvents() ?? []
                record(.alarms(storageEvents, monotonicNow: now, wallNow: wallNow))
                for event in storageEvents { announce(.alarm(event), now: now, wallNow: wallNow) }
            }
            flushFace(now: now)
        }
        StandardOutput.flush()
    }

    private mutating func announce(_ event: ApplianceEvent, now: MonotonicInstant, wallNow: WallClockTime) {
        if eventsJSON {
            for line in event.json(monotonicNow: now, wallNow: wallNow) { print(line.rendered) }
        } else if console {
            printLine(event.logLine)
        }
        logger.log(console ? .info : .warning, event.logLine)
    }

    /// Line writes to the device; button outcomes to the log; the status line refreshed.
    private mutating func flushFace(now: MonotonicInstant) {
        guard var face else { return }
        let rest = device.map { face.flush(to: $0) } ?? face.flush(to: DiscardingFaceBackend())
        let status = FaceStatus.line(for: face.alarms.engine.activeAlarms, at: now)
        self.face = face
        for output in rest {
            switch output {
            case .exportRequested:
                exportToUSB()
            case let .nothingToSilence(gesture, _):
                logger.log(.notice, "button: \(gesture) press, nothing sounding to silence")
            case .face:
                break
            }
        }
        if status != lastStatus {
            lastStatus = status
            device?.show(status: status)
            notify(["STATUS=" + status])
        }
    }

    /// A failed notification is logged once: systemd gone is worth a line, not one per watchdog tick.
    private mutating func notify(_ fields: [String]) {
        guard let notifier else { return }
        do {
            try notifier.send(fields)
        } catch {
            if !notifyFailureLogged { logger.log(.warning, "systemd notification: \(error)") }
            notifyFailureLogged = true
        }
    }
}

/// Where line writes go when the face has no hardware: the alarms still run and are logged.
struct DiscardingFaceBackend: FaceBackend {
    func apply(_ output: FaceOutput, at: MonotonicInstant) {}
}
