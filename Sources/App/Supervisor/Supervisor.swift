import Alarms
import Clocks
import Host
import Readings
import Transmitters
import Web

/// The top of the appliance, sans-IO: the appliance and its face, and the policy around them
/// (storage faults and their retries, the history's opening, commits, pruning and re-dating,
/// systemd's watchdog and status, the face hardware's fault, the USB export). Fed the host's
/// events, the runner's results (`Input`) and the two clocks read together (`ClockReadings`);
/// it returns `Action`s (`takeActions`) and its next deadline. It never reads a clock or makes
/// a system call: the runner does (docs/ARCHITECTURE.md, "The supervisor").
public struct Supervisor {
    public struct Configuration: Sendable {
        /// How each event is shown besides the log.
        public enum EventOutput: Sendable { case none, json, console }
        public var eventOutput: EventOutput = .none
        /// State files are saved (false for the demo, which has none).
        public var savesState = false
        /// Where the history is, for the log; nil runs without one (the demo).
        public var historyPath: String?
        /// Rows kept in memory at most while the history cannot take them.
        public var historyRowLimit = 50_000
        /// Where the double press writes its bundle (`[export] usb`).
        public var usbMountPoint: String?
        public var utcOffset: Duration = .zero
        /// Run by a Type=notify unit: READY, STATUS and STOPPING are sent.
        public var notifiesSystemd = false
        /// systemd's WatchdogSec, halved as systemd asks; nil when there is no watchdog.
        public var watchdogInterval: Duration?
        /// The face is hardware that can be missing or fail (`[face] backend = "gpio"`).
        public var faceIsHardware = false
        /// The face's hardware opened at start.
        public var faceDeviceOpened = true
        /// A serial export starts once the history is open (`[export] serial`).
        public var serialExportConfigured = false
        /// The wall clock's unexplained shift an earlier run saved.
        public var clockShiftAtStart: Duration = .zero
        /// How long storage that failed waits before it is tried again: state files, re-dates
        /// and prunes, and the history's first reopening (`saveRetryInterval`; shorter only in
        /// tests, `vigil run --retry-interval`, so none waits out the real timer).
        public var retryInterval = Supervisor.saveRetryInterval
        /// The page and the Nightscout API on the home network (`[web]`); nil: off.
        public var website: Website.Configuration?
        /// The upload to a Nightscout site (`[nightscout]`); nil: off.
        public var upload: Nightscout.Uploader.Configuration?
        /// Seeds the upload's back-off jitter: random in a run, fixed in a test.
        public var uploadSeed: UInt64 = 0
        /// The HTTP client the upload and the followers share: its limits, its `User-Agent`
        /// (`Vigil/<version>`), and shorter time-outs only in tests.
        public var network: HTTP.Client.Configuration = {
            var network = HTTP.Client.Configuration()
            network.userAgent = "Vigil/" + VigilVersion.string
            return network
        }()
        /// The follower sources (`VigilConfiguration.followers`, docs/followers.md).
        public var followers: [(device: DeviceID, source: FollowerSource)] = []

        public init() {}
    }

    /// How often a state file that could not be saved (and a re-date or a prune that failed)
    /// is tried again. The history's commit needs no such retry: its rows stay pending, and
    /// every turn commits them.
    public static let saveRetryInterval = Duration.seconds(10)
    /// How often old rows are pruned, a budget of rows at a time; sooner while the last budget
    /// ran out (a history over its cap after an upgrade, a clock set a year ahead).
    public static let pruneInterval = Duration.seconds(600)
    public static let pruneCatchUpInterval = Duration.seconds(30)
    /// How often missing or failing face hardware is opened again: a chip whose permissions
    /// udev has not set yet at boot, or one that went away and came back, is found within a
    /// minute, and a failed attempt logs a line.
    public static let faceRetryInterval = Duration.seconds(60)
    /// How often the clock-not-set fault looks at the wall clock.
    public static let clockCheckInterval = Duration.seconds(60)
    /// How long the exit waits for an attempt to open the history still running, to write what
    /// waited in memory.
    public static let historyOpenWaitAtExit = Duration.seconds(10)

    /// Where the history stands.
    enum History {
        /// None configured (the demo).
        case none
        /// The first attempt, at start, has not answered yet.
        case starting
        /// Open; `pending` while rows were appended that no commit has written yet.
        case open(pending: Bool)
        /// Not open: tried again with back-off; `attempting` while an attempt runs.
        case reopening(HistoryReopening, attempting: Bool)
    }

    public internal(set) var appliance: Appliance
    /// The alarm engine joined to the face; nil runs without alarms.
    public internal(set) var face: ApplianceFace<ApplianceAlarms>?
    public let configuration: Configuration
    var actions: [Action] = []

    // The face's hardware.
    var faceDeviceOpen: Bool
    var faceDeviceFailure: String?
    /// The face's failure as the alarms last heard it: the face fault is raised while set.
    var faceFailureReported: String?
    var nextFaceOpen: MonotonicInstant?
    /// The face's time never goes back: a button edge stamped by the kernel a moment before
    /// the face last ran is fed at that later time.
    var faceTime: MonotonicInstant?

    // Storage.
    /// Every driver's saved state, written whole when one changes.
    var driverStates: [DeviceID: [String: String]]
    /// The alarm state last written, so it is written again only when it changes.
    var savedAlarmState: AlarmEngine.State?
    /// What failed at its last write: the storage fault stands while anything is here, and
    /// the state files in it are saved again every `saveRetryInterval`.
    public internal(set) var failingStorage: Set<StoredState> = []
    /// What storage lost for good in this run: the fault stays raised while anything is here.
    public internal(set) var storageLosses: Set<StorageLoss> = []
    var nextSaveRetry: MonotonicInstant?

    // The history.
    var history: History
    /// The history's dropped rows already said.
    var readingsDroppedSaid = 0
    /// When old rows are next pruned; nil: at the first turn with a history.
    var nextPrune: MonotonicInstant?
    /// Clock settings not applied to the history yet: it was not open (applied once it opens),
    /// or the re-date failed (tried again with the state files).
    public internal(set) var clockSettingsNotApplied: [ClockJump] = []
    var redating = false
    var exiting = false
    /// At exit, the rows an attempt that ended then writes.
    var rowsWrittenAtExit: Int?

    // The wall clock.
    var clockWatch: WallClockWatch
    /// The monotonic half of the last pair of clock readings the watch saw.
    var clockWatchedAt: MonotonicInstant?
    var nextClockCheck: MonotonicInstant?

    // systemd, the status line, the USB export.
    var notifiedReady = false
    var nextWatchdog: MonotonicInstant?
    var notifyFailureLogged = false
    var startupCodeDropped = false
    public internal(set) var lastStatus = ""
    var usbExportRunning = false

    // The page on the home network (Supervisor+Web).
    /// nil while `[web]` is off.
    public internal(set) var website: Website?
    /// Closes at once any socket accepted while the page is off (it has room for none).
    var webOff = HTTP.Server(configuration: HTTP.Server.Configuration(maximumConnections: 0, maximumRefusing: 0))

    // The network (Supervisor+Network): the HTTP client the upload and the followers share.
    var httpClient = HTTP.Client()
    var exchangePurposes: [HTTP.ExchangeID: NetworkPurpose] = [:]

    // The Nightscout upload (Supervisor+Upload); nil while `[nightscout]` is off.
    var uploader: Nightscout.Uploader?
    /// The history opened and the uploader was started.
    var uploadStarted = false
    /// Rows the queue takes were recorded since the last commit.
    var uploadQueueGrowing = false
    /// Each device's battery level last recorded in this run (with the upload on).
    var batteryRecorded: [DeviceID: Percent] = [:]
    // The follower sources (Supervisor+Followers).
    public internal(set) var followers: [Follower]
    /// Their readings since the last report, taken in with the appliance's events.
    var followerEvents: [ApplianceEvent] = []
    /// When the direct glucose sources measured lately: a followed reading of the same moment is not counted twice.
    var directGlucose = DirectGlucoseMoments()

    public init(appliance: Appliance, face: ApplianceFace<ApplianceAlarms>?, configuration: Configuration,
                driverStates: [DeviceID: [String: String]] = [:]) {
        self.appliance = appliance
        self.face = face
        self.configuration = configuration
        self.driverStates = driverStates
        faceDeviceOpen = configuration.faceDeviceOpened
        uploader = configuration.upload.map { Nightscout.Uploader(configuration: $0, seed: configuration.uploadSeed) }
        followers = configuration.followers.map { Follower(device: $0.device, source: $0.source) }
        history = configuration.historyPath == nil ? .none : .starting
        httpClient = HTTP.Client(configuration: configuration.network)
        website = configuration.website.map { site in
            var site = site
            // Without the configuration's list, every device the appliance runs, type unknown.
            if site.devices.isEmpty { site.devices = (appliance.links(at: .zero).map(\.device) + configuration.followers.map(\.device)).map { .init(id: $0, kind: "") } }
            return Website(configuration: site)
        }
        clockWatch = WallClockWatch(earliestBelievable: ApplianceAlarms.earliestBelievableTime,
                                    unexplainedShift: configuration.clockShiftAtStart)
        if configuration.clockShiftAtStart != .zero {
            log(.notice, "the wall clock stepped by \(configuration.clockShiftAtStart) in an earlier run; retention ages rows by the clock as it ran before")
        }
    }

    /// The first actions: the history opened, a face that could not be opened said.
    public mutating func start(at now: ClockReadings) {
        if configuration.faceIsHardware, !faceDeviceOpen { nextFaceOpen = now.monotonic + Self.faceRetryInterval }
        if case .starting = history { actions.append(.openHistory(attempt: 1)) }
        website?.started(at: now.monotonic)
        startFollowers(at: now)
        report(at: now)
    }

    public mutating func takeActions() -> [Action] {
        defer { actions = [] }
        return actions
    }

    public var nextDeadline: MonotonicInstant? {
        var reopening: MonotonicInstant?
        var prune: MonotonicInstant?
        switch history {
        case let .reopening(attempt, attempting): reopening = attempting ? nil : attempt.nextAttempt
        case .open: prune = nextPrune ?? .zero  // only with a history: it is what `endOfTurn` prunes
        case .none, .starting: break
        }
        return earliest(appliance.nextDeadline, face?.nextDeadline, face == nil ? nil : nextClockCheck,
                        face == nil ? nil : nextFaceOpen, nextSaveRetry, reopening, prune,
                        configuration.watchdogInterval.map { _ in nextWatchdog ?? .zero },  // the first feed: due at once
                        website?.server.nextDeadline, httpClient.nextDeadline, followersNextDeadline, uploader?.nextDeadline)
    }

    // MARK: The host

    public mutating func controllerReady(host: inout Host, at now: ClockReadings) {
        appliance.controllerReady(host: &host, at: now.monotonic)
        report(at: now)
        // Ready means the radio works: only a controller that answered makes Vigil useful.
        if !notifiedReady {
            notifiedReady = true
            notify(["READY=1", "STATUS=" + (lastStatus.isEmpty ? "watching" : lastStatus)])
        }
        if !startupCodeDropped {
            // Argument parsing, configuration, board profiles and bring-up never run again.
            startupCodeDropped = true
            actions.append(.dropStartupCode)
        }
    }

    public mutating func handle(_ event: Host.Event, host: inout Host, at now: ClockReadings) {
        appliance.handle(event, host: &host, at: now.monotonic)
        report(at: now)
    }

    public mutating func handleDeadline(host: inout Host, at now: ClockReadings) {
        appliance.handleDeadline(host: &host, at: now.monotonic)
        followersDeadline(at: now)
        let faceNow = at(now.monotonic)
        face?.handleDeadline(at: faceNow)
        if face != nil, nextClockCheck.map({ now.monotonic >= $0 }) ?? true {
            face?.update(at: faceNow) { $0.checkClock(wallNow: now.wall, at: faceNow) }
            nextClockCheck = now.monotonic + Self.clockCheckInterval
        }
        // Fed from the loop's own deadlines: a hung loop stops the feeding and systemd restarts us.
        if let interval = configuration.watchdogInterval, nextWatchdog.map({ now.monotonic >= $0 }) ?? true {
            notify(["WATCHDOG=1"])
            nextWatchdog = now.monotonic + interval
        }
        report(at: now)
        advanceWeb(at: now)
        advanceNetwork(at: now)
    }

    /// The turn's work is done: failed saves retried, the clock watched, the history's one
    /// transaction, old rows pruned a little at a time, a history not open tried again.
    public mutating func endOfTurn(at now: ClockReadings) {
        retryFailedSaves(at: now)
        advanceUpload(at: now)
        advanceWeb(at: now)
        pushWebState(at: now)
        if case .none = history { return }
        if watchClock(now) { report(at: now) }  // a storage fault raised just now is announced this turn
        switch history {
        case .reopening: reopenHistoryIfDue(at: now)
        case .open(let pending):
            if pending { actions.append(.commitHistory) }
            if nextPrune.map({ now.monotonic >= $0 }) ?? true {
                // Aged on the clock as it ran before any step ahead: a jump must not delete a day.
                actions.append(.pruneHistory(retentionTime: clockWatch.retentionTime(wall: now.wall)))
                nextPrune = now.monotonic + Self.pruneInterval  // until the answer says otherwise
            }
        case .none, .starting: break
        }
    }

    public mutating func receive(_ input: Input, at now: ClockReadings) {
        switch input {
        case let .button(edge, at):
            log(.debug, "button \(edge) at \(at)")
            let t = self.at(at)
            face?.receive(edge, at: t)
        case let .faceDeviceFailure(failure):
            faceDeviceFailure = failure
        case let .faceDeviceReopened(name):
            faceDeviceOpened(name: name, at: now.monotonic)
        case let .saved(what, succeeded):
            stored(what, succeeded, at: now.monotonic)
        case let .bondsSaved(succeeded):
            stored(.bonds, succeeded, at: now.monotonic)
        case let .stateFilesUnreadable(names):
            for name in names { lost(.stateFile(name), at: now.monotonic) }
        case let .historyOpened(outcome):
            historyOpened(outcome, at: now)
        case let .historyOpenFailed(error):
            historyOpenFailed(error, at: now.monotonic)
        case .historyOpenDidNotEnd:
            historyOpenDidNotEnd()
        case let .historyCommitted(droppedTotal):
            historyCommitted(droppedTotal: droppedTotal, at: now.monotonic)
            uploadCommitted(at: now)
        case let .historyCommitFailed(error, pending, droppedTotal):
            historyCommitFailed(error, pending: pending, droppedTotal: droppedTotal, at: now.monotonic)
        case let .historyPruned(finished, summary):
            historyPruned(finished: finished, summary: summary, at: now.monotonic)
        case let .historyPruneFailed(error):
            historyPruneFailed(error, at: now.monotonic)
        case let .historyRedated(rows):
            historyRedated(rows: rows, at: now.monotonic)
        case let .historyRedateFailed(error):
            historyRedateFailed(error, at: now.monotonic)
        case let .usbExportEnded(succeeded, summary):
            usbExportEnded(succeeded: succeeded, summary: summary, at: now.monotonic)
        case let .webReportEnded(result):
            webReportEnded(result, at: now)
        case let .recentGlucose(readings):
            website?.recent.add(readings, wallNow: now.wall)
            website?.stateChanged = true
        case let .http(event):
            network(event, at: now)
        case let .uploadBatchLoaded(result):
            uploadBatchLoaded(result, at: now)
        case let .uploadsAcknowledged(failure):
            uploadsAcknowledged(failure, at: now)
        case let .notifyFailed(error):
            // systemd gone is worth a line, not one per watchdog tick.
            if !notifyFailureLogged { log(.warning, "systemd notification: \(error)") }
            notifyFailureLogged = true
        case .exiting:
            beginExit()
            return
        }
        if !exiting { report(at: now) }
    }

    // MARK: Helpers

    mutating func log(_ level: Host.LogLevel, _ message: String) {
        actions.append(.log(level, message))
    }

    mutating func notify(_ fields: [String]) {
        if configuration.notifiesSystemd { actions.append(.notify(fields)) }
    }

    /// `now` for the face, never earlier than what it has seen.
    mutating func at(_ now: MonotonicInstant) -> MonotonicInstant {
        let t = max(now, faceTime ?? now)
        faceTime = t
        return t
    }
}
