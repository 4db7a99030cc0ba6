import App
import ArgumentParser
import Bluetooth
import Clocks
import Host
import Platform

struct GATTCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract: "Connect to a device and print its whole GATT database with readable values.",
        discussion: "The starting point for adding a transmitter type: it shows the services, characteristics, properties and values the device offers.")

    @Argument(help: "The device address, e.g. C0:11:22:33:44:55.")
    var address: String

    @Option(name: .customLong("address-type"), help: "public or random; skips the scan that finds it.")
    var addressType: String?

    @OptionGroup var controller: ControllerOptions

    @Flag(help: "Print one JSON document.")
    var json = false

    @Flag(help: "Pair when a read needs encryption.")
    var pair = false

    @Option(help: "Give up after this many seconds.")
    var timeout: Double = 30

    func validate() throws {
        guard Address(address) != nil else { throw ValidationError("\(address) is not an address like C0:11:22:33:44:55") }
        if let addressType, !["public", "random"].contains(addressType) {
            throw ValidationError("--address-type must be public or random")
        }
    }

    func run() throws {
        let logger = Logger(minimum: Logger.level(named: controller.logLevel)!)
        let type: AddressType? = addressType.map { $0 == "public" ? .public : .random }
        var session = GATTSession(dump: GATTDump(address: Address(address)!, addressType: type, pairIfNeeded: pair, scanTimeout: .seconds(10), at: SystemClock.monotonicNow()))
        let code = try controller.runSession(&session, logger: logger, seconds: timeout, reopen: false)
        switch session.dump.state {
        case .done:
            print(json ? session.dump.json().rendered : session.dump.text())
        case .failed(let reason):
            StandardError.write("vigil gatt: \(reason)")
            throw ExitCode(1)
        default:
            StandardError.write(session.captureEnded ? "vigil gatt: the capture ended before the database was read" : "vigil gatt: gave up after \(timeout) s")
            throw ExitCode(code == 0 ? 1 : code)
        }
    }
}

struct GATTSession: HostSession {
    var dump: GATTDump
    /// A replay ended before the dump did: not a timeout, and not to be called one.
    var captureEnded = false
    var exitCode: Int32 { dump.state == .done ? 0 : 1 }
    var isFinished: Bool { dump.isFinished }
    var nextDeadline: MonotonicInstant? { dump.nextDeadline }

    mutating func controllerReady(host: inout Host, at now: MonotonicInstant) { dump.start(host: &host, at: now) }
    mutating func handle(_ event: Host.Event, host: inout Host, at now: MonotonicInstant) { dump.handle(event, host: &host, at: now) }
    mutating func handleDeadline(host: inout Host, at now: MonotonicInstant) { dump.handleDeadline(host: &host, at: now) }
    mutating func inputEnded(at now: MonotonicInstant) { captureEnded = true }
}
