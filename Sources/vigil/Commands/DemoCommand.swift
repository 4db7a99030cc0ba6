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
        discussion: "A simulated controller carries a chest-strap heart-rate monitor that needs pairing and a few noisy neighbours. Vigil scans, connects, pairs, subscribes and decodes, exactly as it does with real devices.")

    @Option(help: "Stop after this many seconds (default: run until Ctrl-C).")
    var seconds: Double?

    @Flag(name: .customLong("events-json"), help: "Print every appliance event as one JSON object per line on stdout.")
    var eventsJSON = false

    @Option(name: .customLong("log-level"), help: "debug, info, notice, warning or error.")
    var logLevel: String = "warning"

    @Option(name: .customLong("btsnoop-log"), help: "Write every HCI packet to this btsnoop file.")
    var btsnoopLog: String?

    func validate() throws {
        guard Logger.level(named: logLevel) != nil else { throw ValidationError("--log-level must be debug, info, notice, warning or error") }
    }

    func run() throws {
        let logger = Logger(minimum: Logger.level(named: logLevel)!)
        print("Vigil demo: a simulated controller with a heart-rate monitor that needs pairing. Ctrl-C to stop.")
        print("Vigil is open-source DIY software, not a certified medical device.")
        var radio = SimulatedRadio()
        radio.add(SimulatedDevices.heartRateMonitor(requiresEncryption: true, securityFactory: SMPPeripheralSecurity.factory()))
        for i in 0..<3 {
            radio.add(SimulatedDevices.noisyAdvertiser(address: DeviceAddress(Address(value: 0xD0_00_00_00_00_10 + UInt64(i)), type: .random), interval: .milliseconds(250)))
        }
        let controller = SimulatedController(radio: radio)
        let driver = try TransmitterRegistry.builtIn.makeDriver(TransmitterConfiguration(typeName: "heart-rate", device: "chest-strap"))
        let appliance = Appliance(devices: [Appliance.Device(driver: driver, pair: true)], remembered: RememberedTransmitters())
        var session = ApplianceSession(appliance: appliance, eventsJSON: eventsJSON, logger: logger, state: nil)
        session.console = !eventsJSON
        StandardOutput.flush()
        var configuration = Host.Configuration(staticAddress: Address(value: 0xC2_D3_E4_F5_06_17))
        configuration.connectTimeout = .seconds(5)
        let start = SystemClock.monotonicNow()
        let runner = HostRunner(
            host: Host(configuration: configuration), logger: logger,
            options: .init(reopenOnFailure: false, stopAt: seconds.map { start + .milliseconds(Int64($0 * 1000)) }, snoopPath: btsnoopLog, stopAtEndOfInput: false),
            bondsChanged: { _ in }) { () throws(PlatformError) -> any HCILink in
            SimulatedLink(controller: controller)
        }
        let code = runner.run(&session)
        if code != 0 { throw ExitCode(code) }
    }
}
