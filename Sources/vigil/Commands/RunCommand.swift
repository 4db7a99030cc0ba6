import Alarms
import App
import ArgumentParser
import Bluetooth
import Clocks
import History
import Host
import Platform
import Readings
import Transmitters
import Web

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the appliance: connect to the configured transmitters and keep them connected.")

    @Option(help: "The configuration file.")
    var config: String = VigilConfiguration.defaultPath

    @Option(name: .long, help: "Override the configuration's HCI transport.")
    var hci: String?

    @Option(name: .customLong("btsnoop-log"), help: "Write every HCI packet in and out to this btsnoop file.")
    var btsnoopLog: String?

    @Option(name: .customLong("state-dir"), help: "Override the configuration's state directory.")
    var stateDirectory: String?

    @Option(name: .customLong("log-level"), help: "Override the configuration's log level.")
    var logLevel: String?

    @Flag(name: .customLong("events-json"), help: "Print every appliance event as one JSON object per line on stdout.")
    var eventsJSON = false

    @Option(name: .customLong("status-socket"), help: "Answer `vigil status` on this unix socket instead of the configuration's [status] socket (\"\" = off).")
    var statusSocket: String?

    @Option(name: .customLong("connect-to"), parsing: .singleValue,
            help: "HOST:PORT:ADDRESS:PORT: connect to ADDRESS:PORT for HOST:PORT (as curl's option); TLS still checks HOST. Repeatable.")
    var connectTo: [String] = []

    @Option(help: "Stop after this many seconds (for tests; the appliance normally runs forever).")
    var seconds: Double?

    /// For tests: a bound small enough to reach in seconds (50,000 rows is hours of a strap).
    @Option(name: .customLong("history-rows-in-memory"), help: .hidden)
    var historyRowsInMemory: Int?

    /// For tests: each attempt to open the history again after it failed waits this many
    /// seconds first, as on a slow card, so a test can see the loop turn meanwhile.
    @Option(name: .customLong("history-open-delay"), help: .hidden)
    var historyOpenDelay: Double?

    /// For tests: storage that failed (state files, bonds, re-dates, prunes, the history's
    /// first reopening) is tried again after this many seconds instead of 10, so a test
    /// drives the retry rather than waiting out the real timer.
    @Option(name: .customLong("retry-interval"), help: .hidden)
    var retryInterval: Double?

    func validate() throws {
        _ = try FetchCommand.connectToRules(connectTo)
    }

    func run() throws {
        do {
            try runAppliance()
        } catch let exit as ExitCode where exit.rawValue == ConfigurationFault.exitCode {
            // Every problem is on stderr with its line; now it must be heard too.
            let text = (try? FileSystem.readFile(path: config)).map { String(decoding: $0, as: UTF8.self) }
            let logger = Logger(minimum: Logger.level(named: logLevel ?? "notice") ?? .notice)
            throw ExitCode(ConfigurationFault.sound(configurationText: text, logger: logger, stopAfter: seconds))
        }
    }

    private func runAppliance() throws {
        let configuration = try Self.loadConfiguration(config)
        try Self.refuseExposedSecrets(configuration, file: config)
        let level = Logger.level(named: logLevel ?? configuration.log.level.rawValue) ?? .info
        let logger = Logger(minimum: level)
        logger.writeOnItsOwnThread()
        defer { logger.finish() }
        var controller = ControllerOptions()
        controller.hci = hci ?? "\(configuration.bluetooth.transport)"
        controller.btsnoopLog = btsnoopLog ?? configuration.bluetooth.btsnoopLog
        controller.stateDirectory = stateDirectory ?? configuration.storage.stateDirectory
        controller.logLevel = level.description
        for warning in configuration.warnings { logger.log(.warning, warning.formatted(file: config)) }
        if let failure = Vigil.codePagesFailure { logger.log(.warning, failure) }
        let state = StateDirectory(path: controller.resolvedStateDirectory, logger: logger)
        let (devices, alarmDevices) = try Self.devices(of: configuration, file: config)
        let web = try WebSetup.load(configuration, file: config)
        let authorities = try NetworkSetup.load(configuration, file: config)
        if devices.isEmpty && configuration.followers.isEmpty {
            logger.log(.warning, "no [[device]] in \(config): Vigil will only keep the controller up")
        }
        let driverStates = state.loadDriverStates()
        let appliance = Appliance(devices: devices, remembered: state.loadRemembered(), activeScan: configuration.bluetooth.scan != .passive,
                                  driverStates: driverStates)
        let faceSetup: FaceSetup
        do {
            faceSetup = try configuration.face.setup()
        } catch {
            StandardError.write("\(config): [face]: \(error)")
            throw ExitCode(78)
        }
        let now = SystemClock.monotonicNow()
        let alarms: ApplianceAlarms
        do {
            alarms = try ApplianceAlarms(configuration: configuration.alarms.alarmConfiguration(watchedDevices: []), devices: alarmDevices,
                                         at: now, restoring: state.loadAlarmState(at: now))
        } catch {
            StandardError.write("\(config): \(error)")
            throw ExitCode(78)
        }
        let device = FaceDevices.open(faceSetup, logger: logger)
        let face = ApplianceFace(alarms: alarms, drive: faceSetup.sequencerDrive, actions: faceSetup.buttonActions, at: now,
                                 buttonPressedAtBoot: device?.isButtonPressedAtBoot ?? false)
        let notifier = SystemdNotifier(environment: .init(uniqueKeysWithValues: ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"].compactMap { k in Environment.value(k).map { (k, $0) } }))
        var setup = Supervisor.Configuration()
        setup.eventOutput = eventsJSON ? .json : .none
        setup.savesState = true
        setup.historyPath = state.path + "/history.sqlite"
        setup.historyRowLimit = historyRowsInMemory.map { max(1, $0) } ?? HistoryStore.defaultPendingLimit
        setup.usbMountPoint = configuration.export.usbMountPoint
        setup.utcOffset = configuration.alarms.utcOffset
        setup.notifiesSystemd = notifier != nil
        setup.watchdogInterval = notifier?.watchdogInterval
        if case .gpio = faceSetup.backend { setup.faceIsHardware = true }
        setup.faceDeviceOpened = device != nil
        setup.serialExportConfigured = configuration.export.serialPort != nil
        setup.clockShiftAtStart = state.loadClockShift()
        // Nightscout, Dexcom Share and LibreLinkUp sources (docs/followers.md).
        setup.followers = configuration.followers
        setup.website = web.map { web in
            var website = Website.Configuration(token: web.token, isHTTPS: web.tls != nil)
            website.units = configuration.alarms.units
            website.devices = configuration.devices.map { .init(id: DeviceID($0.displayName), kind: $0.type) }
            return website
        }
        if let nightscout = configuration.nightscout, let credential = nightscout.credential {
            setup.upload = Nightscout.Uploader.Configuration(site: nightscout.url, credential: credential, utcOffset: configuration.alarms.utcOffset)
            setup.uploadSeed = SecureRandom.bytes(8).reduce(0) { $0 << 8 | UInt64($1) }
        }
        let retry = retryInterval.flatMap { $0 > 0 ? Duration.milliseconds(Int64($0 * 1000)) : nil }
        if let retry { setup.retryInterval = retry }
        var session = ApplianceSession(supervisor: Supervisor(appliance: appliance, face: face, configuration: setup, driverStates: driverStates),
                                       logger: logger, state: state)
        session.device = device
        session.notifier = notifier
        // Missing or failing GPIO hardware is opened again, when the supervisor says.
        if setup.faceIsHardware { session.faceOpener = { FaceDevices.open(faceSetup, logger: logger) } }
        if let port = configuration.export.serialPort {
            let baud = configuration.export.serialBaud, exportConfiguration = SerialExportSession.Configuration(utcOffset: configuration.alarms.utcOffset)
            session.makeSerialExport = { history in
                SerialExportServer(path: port, baud: baud, history: history, configuration: exportConfiguration, logger: logger)
            }
        }
        session.history.path = setup.historyPath ?? ""
        session.history.rowLimit = setup.historyRowLimit
        session.history.uploadTargets = setup.upload == nil ? [] : [Nightscout.Uploader.Configuration.target]
        if let historyOpenDelay, historyOpenDelay > 0 { session.history.openDelay = .milliseconds(Int64(historyOpenDelay * 1000)) }
        if let path = statusSocket.map({ $0.isEmpty ? nil : $0 }) ?? configuration.status.socketPath {
            let board = StatusBoard(version: VigilVersion.string, startedAt: now,
                                    devices: configuration.devices.map { .init(id: DeviceID($0.displayName), kind: $0.type) })
            session.statusServer = StatusServer(path: path, board: board, logger: logger)
            session.statusServer?.open()
        }
        if let web {
            session.webServer = WebServer(listen: web.listen, tls: web.tls, logger: logger)
            session.webServer?.open()
        }
        session.network = HTTPRunner(authorities: authorities, connectTo: try FetchCommand.connectToRules(connectTo), logger: logger)
        session.start(at: ClockReadings(monotonic: now, wall: SystemClock.wallNow()))
        defer { session.close(at: ClockReadings(monotonic: SystemClock.monotonicNow(), wall: SystemClock.wallNow())) }
        // The same state directory: its static address and bonds found unreadable sound the fault too.
        let code = try controller.runSession(&session, logger: logger, seconds: seconds, reopen: true, state: state, retryInterval: retry)
        if code != 0 { throw ExitCode(code) }
    }

    /// Every `[[device]]` as the appliance runs it and as the alarm engine sees it
    /// (`VigilConfiguration.applianceDevices`). A problem is written with its line and is
    /// exit 78, as for the file's own errors.
    static func devices(of configuration: VigilConfiguration, file: String) throws -> (devices: [Appliance.Device], alarms: [TransmitterConfiguration]) {
        // The files the devices name (a G7's credentials), read here so the core never reads one;
        // a relative path is relative to the configuration file's folder.
        var files: [String: AttachedFile] = [:]
        let folder = file.contains("/") ? String(file[..<file.lastIndex(of: "/")!]) : "."
        for path in configuration.filesToRead {
            let resolved = path.hasPrefix("/") ? path : folder + "/" + path
            do {
                files[path] = .contents(try FileSystem.readFile(path: resolved))
            } catch {
                files[path] = .unreadable(reason: "\(error)")
            }
        }
        do {
            return try configuration.applianceDevices(files: files)
        } catch {
            StandardError.write("\(file):\(error.device.position.line): \(error)")
            throw ExitCode(ConfigurationFault.exitCode)
        }
    }

    /// Reads and validates the configuration; any problem is reported with its line and the
    /// appliance refuses to start half-configured (exit 78, EX_CONFIG).
    static func loadConfiguration(_ path: String) throws -> VigilConfiguration {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readFile(path: path)
        } catch {
            StandardError.write("vigil: cannot read the configuration: \(error)")
            throw ExitCode(78)
        }
        // Decoding with replacement would turn a byte the editor mangled into U+FFFD inside a
        // device name or a comment and run on silently: refuse the file, naming the line.
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            let line = (lines.firstIndex { String(validating: $0, as: UTF8.self) == nil } ?? 0) + 1
            StandardError.write("\(path):\(line): not valid UTF-8: save the file as UTF-8")
            throw ExitCode(78)
        }
        let configuration: VigilConfiguration
        do {
            configuration = try VigilConfiguration(parsing: text, knownDeviceTypes: TransmitterCatalog.builtIn.names)
        } catch {
            for problem in error.errors { StandardError.write(problem.formatted(file: path)) }
            throw ExitCode(78)
        }
        return configuration
    }

    /// A secret in a file every user may read is no secret (docs/network.md "Configuration"):
    /// `vigil run` and `vigil config check` refuse such a file (exit 78).
    static func refuseExposedSecrets(_ configuration: VigilConfiguration, file path: String) throws {
        guard !configuration.secretsHeld.isEmpty else { return }
        let mode: UInt32
        do {
            mode = try FileSystem.permissions(path: path)
        } catch {
            StandardError.write("vigil: cannot read the configuration's permissions: \(error)")
            throw ExitCode(78)
        }
        if let problem = configuration.secretFileProblem(mode: mode) {
            StandardError.write("\(path): \(problem)")
            throw ExitCode(78)
        }
    }
}
