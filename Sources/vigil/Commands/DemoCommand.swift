import Alarms
import App
import ArgumentParser
import Bluetooth
import Clocks
import Host
import Platform
import Simulator
import Transmitters

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the whole appliance on a built-in simulated radio: no hardware needed.",
        discussion: "A simulated controller carries a Dexcom G6 (authentication, bonding, glucose with backfill), a chest-strap heart-rate monitor that needs pairing, a BTHome fridge thermometer and a few noisy neighbours. Vigil scans, connects, pairs, subscribes and decodes, exactly as it does with real devices.")

    @Option(help: "Stop after this many seconds (default: run until Ctrl-C).")
    var seconds: Double?

    @Flag(name: .customLong("events-json"), help: "Print every appliance event as one JSON object per line on stdout.")
    var eventsJSON = false

    @Option(name: .customLong("log-level"), help: "debug, info, notice, warning or error.")
    var logLevel: String = "warning"

    @Option(name: .customLong("btsnoop-log"), help: "Write every HCI packet to this btsnoop file.")
    var btsnoopLog: String?

    @Option(name: .customLong("status-socket"), help: "Answer `vigil status` on this unix socket (default: none, so a demo never takes the appliance's).")
    var statusSocket: String?

    @Option(help: "Serve the page and the Nightscout API here (host:port, e.g. 127.0.0.1:8080), with a new token each run that is printed with the address.")
    var web: String?

    func validate() throws {
        guard Logger.level(named: logLevel) != nil else { throw ValidationError("--log-level must be debug, info, notice, warning or error") }
        if let web {
            do { _ = try VigilConfiguration.Web.ListenAddress(parsing: web) } catch { throw ValidationError("--web \(error)") }
        }
    }

    func run() throws {
        let logger = Logger(minimum: Logger.level(named: logLevel)!)
        print("Vigil demo: a simulated radio with a Dexcom G6 at the bottom of a low, a heart-rate strap and a fridge thermometer. Ctrl-C to stop.")
        if !eventsJSON { print("The button is a key: space = short press (snooze), l = long press (acknowledge), d = double press (export).") }
        print("Vigil is open-source DIY software, not a certified medical device.")
        var radio = SimulatedRadio()
        let now = SystemClock.monotonicNow()
        // A Dexcom that wakes every 30 s instead of every 5 minutes, so the demo shows sessions,
        // at the bottom of a night's low: urgent low sounds at once and recovers over 20 minutes.
        // Dex time runs from the monotonic clock's zero (boot), so the bottom is placed at the
        // reading the session has reached now: two hours of session plus the time since boot.
        let sessionAge: UInt32 = 7_200
        let readingNow = (Double(sessionAge) + Double(SystemClock.monotonicNow().nanoseconds) / 1e9) / Double(SimulatedDexcom.readingInterval)
        var dexcom = SimulatedDexcom(id: try Dexcom.TransmitterID("811234"), sessionAge: sessionAge, cycle: .seconds(30),
                                     curve: .recoveringFromLow(atReading: readingNow.rounded(.down)))
        radio.add(dexcom.makePeripheral())
        radio.add(SimulatedDevices.heartRateMonitor(requiresEncryption: true, securityFactory: SMPPeripheralSecurity.factory()))
        radio.add(SimulatedThermometer.bthome(name: "Fridge"))
        for i in 0..<3 {
            radio.add(SimulatedDevices.noisyAdvertiser(address: DeviceAddress(Address(value: 0xD0_00_00_00_00_10 + UInt64(i)), type: .random), interval: .milliseconds(250)))
        }
        var controller = SimulatedController(radio: radio)
        dexcom.service(&controller.radio, at: now)
        let configurations = [
            TransmitterConfiguration(typeName: "dexcom", device: "g6", options: ["transmitter-id": "811234"]),
            TransmitterConfiguration(typeName: "heart-rate", device: "chest-strap"),
            TransmitterConfiguration(typeName: "bthome", device: "fridge"),
        ]
        let appliance = Appliance(devices: [
            Appliance.Device(driver: try TransmitterRegistry.builtIn.makeDriver(configurations[0])),
            Appliance.Device(driver: try TransmitterRegistry.builtIn.makeDriver(configurations[1]), pair: true),
            Appliance.Device(decoder: try BroadcastRegistry.builtIn.makeDecoder(configurations[2])),
        ], remembered: RememberedTransmitters())
        // The face on the terminal: buzzer and LED drawn on a status line, a key for the button.
        let setup = FaceSetup(backend: eventsJSON ? .none : .console, longPress: .acknowledge)
        let device = FaceDevices.open(setup, logger: logger)
        let face = ApplianceFace(alarms: try ApplianceAlarms(configuration: AlarmConfiguration(), devices: configurations, at: now),
                                 drive: setup.sequencerDrive, actions: setup.buttonActions, at: now)
        var supervision = Supervisor.Configuration()
        supervision.eventOutput = eventsJSON ? .json : .console
        // The page on a token of its own, made for this run: a demo has no configuration file.
        let listen = try web.map { try VigilConfiguration.Web.ListenAddress(parsing: $0) }
        let token = listen.map { _ in WebToken.make(from: SecureRandom.bytes(WebToken.generatedLength)) }
        if let token {
            var website = Website.Configuration(token: token)
            website.devices = configurations.map { .init(id: $0.device, kind: $0.typeName) }
            supervision.website = website
        }
        var session = ApplianceSession(supervisor: Supervisor(appliance: appliance, face: face, configuration: supervision),
                                       logger: logger, state: nil)
        session.device = device
        if let console = device as? ConsoleFaceDevice { session.printLine = { console.printAbove($0) } }
        if let path = statusSocket, !path.isEmpty {
            let board = StatusBoard(version: VigilVersion.string, startedAt: now,
                                    devices: configurations.map { .init(id: $0.device, kind: $0.typeName) })
            session.statusServer = StatusServer(path: path, board: board, logger: logger)
            session.statusServer?.open()
        }
        if let listen, let token {
            session.webServer = WebServer(listen: listen, tls: nil, logger: logger)
            session.webServer?.open()
            if session.webServer?.isListening == true {
                print("The page: http://\(Self.browsable(listen))/?token=\(token)")
            } else {
                print("The page could not be served on \(listen) (the reason is above); the demo runs on without it.")
            }
        }
        session.start(at: ClockReadings(monotonic: now, wall: SystemClock.wallNow()))
        defer { session.close(at: ClockReadings(monotonic: SystemClock.monotonicNow(), wall: SystemClock.wallNow())) }
        var configuration = Host.Configuration(staticAddress: Address(value: 0xC2_D3_E4_F5_06_17))
        configuration.connectTimeout = .seconds(5)
        let start = SystemClock.monotonicNow()
        let runner = HostRunner(
            host: Host(configuration: configuration), logger: logger,
            options: .init(reopenOnFailure: false, stopAt: seconds.map { start + .milliseconds(Int64($0 * 1000)) }, snoopPath: btsnoopLog, stopAtEndOfInput: false),
            bondsChanged: { _ in true }) { () throws(PlatformError) -> LinkOpening in
            .opened(SimulatedLink(controller: controller, dexcom: dexcom))
        }
        let code = runner.run(&session)
        if code != 0 { throw ExitCode(code) }
    }

    /// An address a browser on this machine can open: every-address listens are reached on
    /// loopback.
    static func browsable(_ listen: VigilConfiguration.Web.ListenAddress) -> String {
        switch listen.host {
        case "0.0.0.0": "127.0.0.1:\(listen.port)"
        case "::": "[::1]:\(listen.port)"
        default: listen.description
        }
    }
}
