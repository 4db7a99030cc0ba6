import Alarms
import App
import Bluetooth
import Clocks
import Host
import Readings
import Simulator
import Testing
import Transmitters
import Web

/// The supervisor run as `vigil run` runs it, on a virtual clock: a simulated controller with a
/// BTHome thermometer (a reading every 3 s), and storage whose failures the test scripts. Every
/// action is performed and answered the way the session answers it; time moves only by jumping
/// from deadline to deadline, and the wall clock runs with it until a test steps it.
struct SupervisorWorld {
    static let start = MonotonicInstant(nanoseconds: 1_000_000_000)
    /// 2026-11-22T10:00:00Z, a set clock.
    static let setClock = WallClockTime(secondsSinceEpoch: 1_795_341_600)
    /// A board without a real-time clock boots near the epoch.
    static let unsetClock = WallClockTime(secondsSinceEpoch: 86_400)

    var supervisor: Supervisor
    var host: Host
    var controller: SimulatedController
    var now = Self.start
    /// The wall clock at `start`; a step moves it.
    var wallAtStart: WallClockTime
    var wall: WallClockTime { wallAtStart + (now - Self.start) }
    var clocks: ClockReadings { ClockReadings(monotonic: now, wall: wall) }

    // Storage, as the test scripts it.
    var failingFiles: Set<StoredState> = []
    var historyOpens = true
    var openOutcome: HistoryOpenOutcome = .created
    /// Attempts after the first wait for `finishOpening` (a slow card) instead of answering at once.
    var holdOpenings = false
    var historyLocked = false
    var prunesFail = false
    var redatesFail = false
    /// The history's own bound on rows kept in memory after a failed commit.
    var pendingLimit: Int

    // The history as the store holds it.
    var opened = false
    var pending: [HistoryRecord] = []
    var written: [HistoryRecord] = []
    var droppedTotal = 0
    var redated: [ClockJump] = []
    var prunes = 0

    // What the runner did.
    var logs: [(level: Host.LogLevel, text: String)] = []
    var printed: [String] = []
    var observed: [ApplianceEvent] = []
    var notifications: [[String]] = []
    var saves: [(file: StoredState, at: MonotonicInstant)] = []
    var openAttempts: [(attempt: Int, at: MonotonicInstant)] = []
    var attemptRunning: Int?
    var statuses: [String] = []
    var usbExports: [String] = []
    var faceReopenings = 0
    var faceDevice: (opens: Bool, failure: String?) = (true, nil)
    /// The page's sockets as the web listener would hold them.
    var web = WebSockets()

    init(configure: (inout Supervisor.Configuration) -> Void = { _ in }, wallAtStart: WallClockTime = Self.setClock,
         failingFiles: Set<StoredState> = [], historyOpens: Bool = true, openOutcome: HistoryOpenOutcome = .created,
         readings: Bool = true, glucose: GlucoseScript? = nil, buttonActions: ButtonActions = ButtonActions()) throws {
        self.failingFiles = failingFiles
        self.historyOpens = historyOpens
        self.openOutcome = openOutcome
        var configuration = Supervisor.Configuration()
        configuration.eventOutput = .json
        configuration.savesState = true
        configuration.historyPath = "/state/history.sqlite"
        configure(&configuration)
        pendingLimit = configuration.historyRowLimit
        self.wallAtStart = wallAtStart
        var devices: [Appliance.Device] = []
        var peripherals: [SimulatedPeripheral] = []
        if let glucose {
            devices.append(Appliance.Device(decoder: ScriptedCGM(device: "cgm", script: glucose)))
            peripherals.append(SimulatedThermometer.bthome(name: "Fridge"))
        } else if readings {
            let fridge = TransmitterConfiguration(typeName: "bthome", device: "fridge")
            devices.append(Appliance.Device(decoder: try BroadcastRegistry.builtIn.makeDecoder(fridge)))
            peripherals.append(SimulatedThermometer.bthome(name: "Fridge"))
        }
        let appliance = Appliance(devices: devices, remembered: RememberedTransmitters())
        let face = ApplianceFace(alarms: ApplianceAlarms(configuration: AlarmConfiguration(), at: Self.start), drive: .active, actions: buttonActions, at: Self.start)
        supervisor = Supervisor(appliance: appliance, face: face, configuration: configuration)
        host = Host(configuration: Host.Configuration(staticAddress: Address(value: 0xC1_02_03_04_05_06)), random: CountingRandom())
        controller = SimulatedController(radio: SimulatedRadio(peripherals: peripherals))
        supervisor.start(at: clocks)
        perform()
        host.start(at: now)
        pump()
    }

    // MARK: Running

    /// Moves packets and events until everything is quiet, then ends the turn as the runner does.
    mutating func pump() {
        host.wallClock = wall
        for _ in 0..<10_000 {
            var moved = false
            for output in host.takeOutputs() {
                moved = true
                switch output {
                case .send(let packet):
                    controller.receive(fromHost: packet, at: now)
                case .event(let event):
                    supervisor.handle(event, host: &host, at: clocks)
                    if case .controllerReady = event { supervisor.controllerReady(host: &host, at: clocks) }
                    perform()
                }
            }
            for packet in controller.takePacketsForHost() {
                moved = true
                host.receive(packet, at: now)
            }
            if !moved {
                supervisor.endOfTurn(at: clocks)
                perform()
                // The page's clients that read take what the turn wrote (the socket side's writes).
                if !web.read.isEmpty { _ = webClientsRead() }
                return
            }
        }
        Issue.record("the world never went quiet at \(now)")
    }

    /// Runs for `duration` of virtual time, jumping from deadline to deadline.
    mutating func advance(by duration: Duration) {
        let end = now + duration
        for _ in 0..<1_000_000 {
            guard let next = earliest(host.nextDeadline, controller.nextDeadline, supervisor.nextDeadline), next <= end else { break }
            now = max(now, next)
            host.wallClock = wall
            host.handleDeadline(at: now)
            controller.handleDeadline(at: now)
            if let due = supervisor.nextDeadline, now >= due {
                supervisor.handleDeadline(host: &host, at: clocks)
                perform()
            }
            pump()
        }
        now = end
        pump()
    }

    /// Advances until `condition` holds or `limit` passes; returns whether it held.
    @discardableResult
    mutating func advance(until limit: Duration, _ condition: (SupervisorWorld) -> Bool) -> Bool {
        let end = now + limit
        while now < end {
            if condition(self) { return true }
            advance(by: .milliseconds(500))
        }
        return condition(self)
    }

    /// The wall clock steps (NTP sets it); seen at the next turn.
    mutating func stepWallClock(to wall: WallClockTime) {
        wallAtStart = wall - (now - Self.start)
    }

    mutating func tell(_ input: Supervisor.Input) {
        supervisor.receive(input, at: clocks)
        perform()
    }

    /// The attempt held by `holdOpenings` ends, as `historyOpens` says.
    mutating func finishOpening() {
        guard attemptRunning != nil else { Issue.record("no attempt is running"); return }
        attemptRunning = nil
        tell(answerOpening())
    }

    /// The history's upload queue, as its triggers fill it: glucose, meter and battery rows.
    var uploadQueue: [UploadQueue.Item] = []
    /// Batches the uploader asked for; while `holdUploadLoads`, they are left unanswered for
    /// the test to answer.
    var uploadLoads = 0
    var holdUploadLoads = false

    /// The HTTP client's connection work, in order: a test answers it with `Input.http`.
    var httpActions: [HTTP.Client.Action] = []
    /// A server that answers every exchange at once (connected, secured, sent, then its
    /// response and the close): the status code for each request's text; nil: the test answers.
    var server: ((String) -> Int)?
    /// The requests `server` answered, as text.
    var served: [String] = []

    // MARK: Performing

    mutating func queueForUpload(_ records: [HistoryRecord]) {
        for case let .readings(readings, _) in records {
            for reading in readings where [.glucose, .meterGlucose, .battery].contains(reading.kind) {
                uploadQueue.append(UploadQueue.Item(id: UploadQueue.ItemID(source: .reading, row: Int64(uploadQueue.count + 1)), content: .reading(reading)))
            }
        }
    }

    mutating func perform() {
        while true {
            let actions = supervisor.takeActions()
            if actions.isEmpty { return }
            for action in actions { perform(action) }
        }
    }

    private mutating func perform(_ action: Supervisor.Action) {
        switch action {
        case let .log(level, text):
            logs.append((level, text))
        case let .print(line):
            printed.append(line)
        case let .observe(event):
            observed.append(event)
        case let .save(file):
            saves.append((file.stored, now))
            supervisor.receive(.saved(file.stored, succeeded: !failingFiles.contains(file.stored)), at: clocks)
        case let .record(record):
            #expect(opened, "a row for a history that is not open")
            pending.append(record)
            var rows = pending.reduce(0) { $0 + $1.rows }
            while rows > pendingLimit, pending.count > 1 {
                rows -= pending[0].rows
                droppedTotal += pending.removeFirst().rows
            }
        case .commitHistory:
            if historyLocked {
                let rows = pending.reduce(0) { $0 + $1.rows }
                supervisor.receive(.historyCommitFailed("database is locked", pending: rows, droppedTotal: droppedTotal), at: clocks)
            } else {
                written += pending
                queueForUpload(pending)
                pending = []
                supervisor.receive(.historyCommitted(droppedTotal: droppedTotal), at: clocks)
            }
        case .pruneHistory:
            prunes += 1
            supervisor.receive(prunesFail ? .historyPruneFailed("disk I/O error") : .historyPruned(finished: true, summary: "0 rows"), at: clocks)
        case let .redateHistory(setting):
            if redatesFail || historyLocked {
                supervisor.receive(.historyRedateFailed("database is locked"), at: clocks)
            } else {
                redated.append(setting)
                supervisor.receive(.historyRedated(rows: written.count), at: clocks)
            }
        case let .openHistory(attempt):
            openAttempts.append((attempt, now))
            if attempt > 1 && holdOpenings {
                attemptRunning = attempt
            } else {
                supervisor.receive(answerOpening(), at: clocks)
            }
        case .finishHistoryOpening:
            if attemptRunning != nil {
                attemptRunning = nil
                supervisor.receive(answerOpening(), at: clocks)
            }
        case let .loadUploadBatch(_, limit):
            uploadLoads += 1
            if holdUploadLoads { return }
            let status = UploadQueue.Status(queued: uploadQueue.count, oldest: uploadQueue.first.flatMap { item in
                if case let .reading(reading) = item.content { reading.wallTime } else { nil }
            })
            supervisor.receive(.uploadBatchLoaded(.success(UploadQueue.Batch(items: Array(uploadQueue.prefix(limit)), status: status))), at: clocks)
        case let .acknowledgeUploads(_, ids, _):
            uploadQueue.removeAll { ids.contains($0.id) }
            supervisor.receive(.uploadsAcknowledged(failure: nil), at: clocks)
        case .startSerialExport, .dropStartupCode, .stopUSBExport:
            break
        case let .notify(fields):
            notifications.append(fields)
        case .face:
            break
        case let .showStatus(status):
            statuses.append(status)
        case .reopenFaceDevice:
            faceReopenings += 1
            supervisor.receive(.faceDeviceReopened(name: faceDevice.opens ? "gpiochip0" : nil), at: clocks)
            if faceDevice.opens, let failure = faceDevice.failure { supervisor.receive(.faceDeviceFailure(failure), at: clocks) }
        case let .startUSBExport(_, mountPoint):
            usbExports.append(mountPoint)
        case let .webShutdownWrite(id):
            web.shutDown.insert(id)
        case let .webClose(id):
            web.closed.insert(id)
        case let .renderWebReport(request):
            web.reportRequests.append(request)
        case let .loadRecentGlucose(since):
            let found = (pending + written).flatMap { record -> [RecordedReading] in
                if case let .readings(readings, _) = record { readings.filter { $0.wallTime >= since } } else { [] }
            }
            supervisor.receive(.recentGlucose(found + web.storedGlucose), at: clocks)
        case let .http(action):
            httpActions.append(action)
            guard let server else { return }
            switch action {
            case let .open(id, _, _, tls):
                supervisor.receive(.http(.resolved(id)), at: clocks)
                supervisor.receive(.http(.connected(id)), at: clocks)
                if tls { supervisor.receive(.http(.secured(id)), at: clocks) }
            case let .send(id, bytes):
                let request = String(decoding: bytes, as: UTF8.self)
                served.append(request)
                let status = server(request)
                supervisor.receive(.http(.sent(id)), at: clocks)
                supervisor.receive(.http(.received(id, Array("HTTP/1.1 \(status) Answer\r\nContent-Length: 2\r\n\r\n[]".utf8))), at: clocks)
            case .close:
                break
            }
        }
    }

    private mutating func answerOpening() -> Supervisor.Input {
        guard historyOpens else { return .historyOpenFailed("unable to open database file") }
        opened = true
        return .historyOpened(openOutcome)
    }

    // MARK: What was seen

    /// The storage fault raised and cleared as announced, in order.
    var storageFault: [String] { raisedAndCleared(.fault(.storageFailing)) }

    func raisedAndCleared(_ kind: AlarmKind) -> [String] {
        changes(of: kind).compactMap {
            switch $0 {
            case .raised: "raised"
            case .cleared: "cleared"
            default: nil
            }
        }
    }

    func changes(of kind: AlarmKind) -> [AlarmEvent.Change] {
        observed.compactMap { if case let .alarm(event) = $0, event.kind == kind { event.change } else { nil } }
    }

    var storageFaultRaised: Bool {
        supervisor.face?.alarms.engine.activeAlarms.contains { $0.kind == .fault(.storageFailing) } ?? false
    }

    /// Readings the appliance reported, all told.
    var observedReadingCount: Int {
        observed.reduce(0) { if case let .readings(_, _, readings) = $1 { $0 + readings.count } else { $0 } }
    }

    var readingEvents: Int { observed.filter { if case .readings = $0 { true } else { false } }.count }

    /// Rows written to (or pending in) the history that are readings.
    func readingRows(in records: [HistoryRecord]) -> Int {
        records.reduce(0) { if case let .readings(r, _) = $1 { $0 + r.count } else { $0 } }
    }

    func saveTimes(of file: StoredState) -> [MonotonicInstant] { saves.filter { $0.file == file }.map(\.at) }

    func logged(_ text: String) -> Bool { logs.contains { $0.text.contains(text) } }
    func logCount(_ text: String) -> Int { logs.filter { $0.text.contains(text) }.count }
}
