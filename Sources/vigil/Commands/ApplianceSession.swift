import App
import Clocks
import History
import Host
import Platform
import Web

/// `vigil run` and `vigil demo` as a host session: the `Supervisor` (the appliance, its face
/// and the policy around them) run on real I/O. The session reads no clock and decides
/// nothing: it hands the supervisor the runner's clock readings and what happened, and
/// performs the actions it returns (files, SQLite, the face's lines, systemd, background jobs).
struct ApplianceSession: HostSession {
    var supervisor: Supervisor
    let logger: Logger
    /// Where the state files go; nil for the demo.
    let state: StateDirectory?
    /// The buzzer, LED and button; nil when the face has no hardware (backend "none"), or
    /// its hardware could not be had: the alarms still run, are logged and kept.
    var device: (any FaceDevice)?
    /// Opens the face's hardware again (`reopenFaceDevice`); nil for a face that is not hardware.
    var faceOpener: (() -> (any FaceDevice)?)?
    /// The device's failure as last told to the supervisor.
    private var faceFailureTold: String?
    /// How a line reaches the terminal: the console face prints it above its status line.
    var printLine: (String) -> Void = { print($0) }
    var exitCode: Int32 = 0
    var isFinished: Bool { false }
    var history = HistorySide()
    /// Makes the serial export (`[export] serial`) once the history is open.
    var makeSerialExport: ((HistoryStore) -> SerialExportServer)?
    /// The serial export protocol on a tty; nil when not configured or the history is not open.
    var serialExport: SerialExportServer?
    /// `vigil status` answered on a unix socket; nil when off (`[status] socket = ""`).
    var statusServer: StatusServer?
    /// The page's sockets (`[web]`); nil when off.
    var webServer: WebServer?
    /// The HTTP client's connections (the upload, the followers); nil in the demo, which has
    /// no network: an exchange started there fails at once.
    var network: HTTPRunner?
    /// systemd's notification socket; nil when not run by a Type=notify unit.
    var notifier: SystemdNotifier?
    /// The bundle being written on its own thread; nil when none is.
    var usbExportJob: BackgroundJob<USBExport.Result>?
    /// The page's report being made on its own thread; nil when none is.
    var webReportJob: BackgroundJob<WebReportResult>?

    init(supervisor: Supervisor, logger: Logger, state: StateDirectory?) {
        self.supervisor = supervisor
        self.logger = logger
        self.state = state
    }

    /// The supervisor's first actions (the history opened), before the loop.
    mutating func start(at now: ClockReadings) {
        supervisor.start(at: now)
        perform(at: now)
    }

    var nextDeadline: MonotonicInstant? {
        earliest(supervisor.nextDeadline, device?.nextDeadline, serialExport?.nextDeadline, statusServer?.nextDeadline,
                 webServer?.nextDeadline)
    }

    var descriptors: [Int32] {
        (device?.descriptors ?? []) + (serialExport?.descriptors ?? []) + (statusServer?.descriptors ?? [])
            + (usbExportJob.map { [$0.descriptor] } ?? []) + (history.opening.map { [$0.descriptor] } ?? [])
            + (webReportJob.map { [$0.descriptor] } ?? []) + (webServer?.descriptors(supervisor) ?? [])
            + (network?.descriptors ?? [])
    }

    /// An export still being sent on the serial port, a status answer on its socket: poll says
    /// when they take more, so a slow reader costs no wake-ups.
    var writeInterest: [Int32] {
        (serialExport?.wantsToWrite == true ? serialExport?.descriptors ?? [] : []) + (statusServer?.writeDescriptors ?? [])
            + (webServer?.writeDescriptors(supervisor) ?? []) + (network?.writeDescriptors ?? [])
    }

    mutating func writable(_ descriptor: Int32, host: inout Host, at now: MonotonicInstant) {
        if let serialExport, serialExport.descriptors.contains(descriptor) {
            serialExport.writable(descriptor, at: now)
        } else if let statusServer, statusServer.writeDescriptors.contains(descriptor) {
            statusServer.writable(at: now)
        } else if let webServer, webServer.owns(descriptor) {
            let clocks = ClockReadings(monotonic: now, wall: host.wallClock)
            webServer.writable(descriptor, supervisor: &supervisor, at: clocks)
            perform(at: clocks)
        } else if let network, network.owns(descriptor) {
            network.writable(descriptor)
            perform(at: ClockReadings(monotonic: now, wall: host.wallClock))
        }
    }

    mutating func controllerReady(host: inout Host, at now: MonotonicInstant) {
        let clocks = ClockReadings(monotonic: now, wall: host.wallClock)
        supervisor.controllerReady(host: &host, at: clocks)
        perform(at: clocks)
    }

    mutating func handle(_ event: Host.Event, host: inout Host, at now: MonotonicInstant) {
        let clocks = ClockReadings(monotonic: now, wall: host.wallClock)
        supervisor.handle(event, host: &host, at: clocks)
        perform(at: clocks)
    }

    mutating func handleDeadline(host: inout Host, at now: MonotonicInstant) {
        let clocks = ClockReadings(monotonic: now, wall: host.wallClock)
        if let device { press(device.dueEdges(at: now), at: clocks) }
        supervisor.handleDeadline(host: &host, at: clocks)
        perform(at: clocks)
    }

    mutating func readable(_ descriptor: Int32, host: inout Host, at now: MonotonicInstant) {
        let clocks = ClockReadings(monotonic: now, wall: host.wallClock)
        if let serialExport, serialExport.descriptors.contains(descriptor) {
            serialExport.readable(descriptor, at: now, wallNow: clocks.wall)
        } else if let statusServer, statusServer.descriptors.contains(descriptor) {
            statusServer.readable(descriptor, at: now) { statusAnswer($0, board: statusServer.board, at: clocks) }
        } else if let webServer, webServer.owns(descriptor) {
            webServer.readable(descriptor, supervisor: &supervisor, at: clocks)
            perform(at: clocks)
        } else if let network, network.owns(descriptor) {
            network.readable(descriptor)
            perform(at: clocks)
        } else if let job = usbExportJob, descriptor == job.descriptor {
            usbExportJob = nil
            if let result = job.finish() { tell(.usbExportEnded(succeeded: result.succeeded, summary: "\(result)"), at: clocks) }
        } else if let job = webReportJob, descriptor == job.descriptor {
            webReportJob = nil
            tell(.webReportEnded(job.finish() ?? .failed("the report's thread ended without one")), at: clocks)
        } else if let job = history.opening, descriptor == job.descriptor {
            history.opening = nil
            if let opened = job.finish() { tell(history.adopt(opened.result), at: clocks) }
        } else if let device {
            press(device.readButton(descriptor, at: now), at: clocks)
        }
    }

    mutating func endOfTurn(at now: MonotonicInstant, wallNow: WallClockTime) {
        if let serialExport {
            if let due = serialExport.nextDeadline, now >= due { serialExport.handleDeadline(at: now) }
            if serialExport.wantsToWrite, let fd = serialExport.descriptors.first { serialExport.writable(fd, at: now) }
        }
        statusServer?.endOfTurn(at: now)
        let clocks = ClockReadings(monotonic: now, wall: wallNow)
        // The bonds and the static address are read by the runner after the session is made.
        if let names = state?.takeProblems(), !names.isEmpty { supervisor.receive(.stateFilesUnreadable(names), at: clocks) }
        webServer?.beforeTurn(supervisor: &supervisor, at: clocks)
        supervisor.endOfTurn(at: clocks)
        perform(at: clocks)
        if let webServer {
            webServer.afterTurn(supervisor: &supervisor, at: clocks)
            perform(at: clocks)
        }
    }

    mutating func bondsSaved(_ succeeded: Bool, at now: MonotonicInstant, wallNow: WallClockTime) {
        tell(.bondsSaved(succeeded: succeeded), at: ClockReadings(monotonic: now, wall: wallNow))
    }

    /// Buzzer and LED off, lines released, the terminal restored, the history's last rows written.
    mutating func close(at now: ClockReadings) {
        tell(.exiting, at: now)
        device?.close()
        serialExport?.close()
        statusServer?.close()
        webServer?.close()
        network?.close()
    }

    private mutating func press(_ edges: [TimedButtonEdge], at now: ClockReadings) {
        for edge in edges { supervisor.receive(.button(edge.edge, at: edge.at), at: now) }
        if !edges.isEmpty { perform(at: now) }
    }

    private mutating func tell(_ input: Supervisor.Input, at now: ClockReadings) {
        supervisor.receive(input, at: now)
        perform(at: now)
    }

    /// Performs the supervisor's actions until it has none; the answers of those that can
    /// fail go back to it at once (or when their job ends), and may make more.
    private mutating func perform(at now: ClockReadings) {
        while true {
            let actions = supervisor.takeActions()
            if actions.isEmpty, let network, network.hasEvents {
                // How the connections went, for the HTTP client (and what it does next).
                for event in network.takeEvents() { supervisor.receive(.http(event), at: now) }
                continue
            }
            if actions.isEmpty {
                // A line write that failed, or one that works again, is the face fault's news.
                let failure = device?.failure
                guard failure != faceFailureTold else { break }
                faceFailureTold = failure
                supervisor.receive(.faceDeviceFailure(failure), at: now)
                continue
            }
            for action in actions { perform(action, at: now) }
        }
        StandardOutput.flush()
    }

    private mutating func perform(_ action: Supervisor.Action, at now: ClockReadings) {
        switch action {
        case let .log(level, message):
            logger.log(level, message)
        case let .print(line):
            printLine(line)
        case let .observe(event):
            statusServer?.board.observe(event, at: now.monotonic)
        case let .save(file):
            guard let state else { return }
            let saved = switch file {
            case let .alarmState(alarms, at): state.saveAlarmState(alarms, at: at)
            case let .rememberedTransmitters(remembered): state.saveRemembered(remembered)
            case let .driverStates(states): state.saveDriverStates(states)
            case let .clockShift(watch): state.saveClockShift(watch)
            }
            supervisor.receive(.saved(file.stored, succeeded: saved), at: now)
        case .record, .commitHistory, .pruneHistory, .redateHistory, .openHistory, .finishHistoryOpening, .loadUploadBatch, .acknowledgeUploads:
            if let answer = history.perform(action) { supervisor.receive(answer, at: now) }
        case .startSerialExport:
            guard let make = makeSerialExport, let store = history.store else { return }
            makeSerialExport = nil
            serialExport = make(store)
            serialExport?.open(at: now.monotonic)
        case let .notify(fields):
            do { try notifier?.send(fields) } catch { supervisor.receive(.notifyFailed("\(error)"), at: now) }
        case let .face(output, at):
            device?.apply(output, at: at)
        case let .showStatus(status):
            device?.show(status: status)
        case .reopenFaceDevice:
            if let old = device {
                logger.log(.notice, "face: opening \(old.name) again")
                old.close()
            }
            device = faceOpener?()
            faceFailureTold = nil
            supervisor.receive(.faceDeviceReopened(name: device?.name), at: now)
        case let .startUSBExport(bundle, mountPoint):
            guard let path = history.store?.path else { return }
            do {
                usbExportJob = try BackgroundJob(name: "vigil-usb-export") { stopRequested in
                    USBExport.write(bundle, to: mountPoint, historyAt: path, stopRequested: stopRequested)
                }
            } catch {
                supervisor.receive(.usbExportEnded(succeeded: false, summary: "\(USBExport.Result.failed(reason: "\(error)"))"), at: now)
            }
        case .stopUSBExport:
            guard let job = usbExportJob else { return }
            usbExportJob = nil
            job.requestStop()
            if let result = job.finish() { supervisor.receive(.usbExportEnded(succeeded: result.succeeded, summary: "\(result)"), at: now) }
        case .dropStartupCode:
            // Its code pages need not stay mapped (see CodePages).
            do { try CodePages.dropStartupCode() } catch { logger.log(.info, "\(error)") }
        case let .renderWebReport(request):
            guard let path = history.store?.path else {
                return supervisor.receive(.webReportEnded(.failed("the history is not open")), at: now)
            }
            do {
                webReportJob = try WebReportJob.start(request, historyAt: path)
            } catch {
                supervisor.receive(.webReportEnded(.failed("\(error)")), at: now)
            }
        case let .loadRecentGlucose(since):
            supervisor.receive(.recentGlucose(history.recentGlucose(since: since)), at: now)
        case .webShutdownWrite, .webClose:
            webServer?.perform(action)
        case let .http(action):
            if let network {
                network.perform(action)
            } else if case let .open(id, _, _, _) = action {
                supervisor.receive(.http(.failed(id, .connectFailed("this command makes no network connections"))), at: now)
            }
        }
    }
}
