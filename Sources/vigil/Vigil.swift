import App
import ArgumentParser
import Platform

/// `vigil`: a bedside alarm that is its own Bluetooth LE host.
///
/// Exit codes scripts can rely on: 0 success; 1 runtime failure (no controller, a device that
/// could not be reached); 64 bad command line; 78 bad configuration.
@main
struct Vigil: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vigil",
        abstract: "A bedside alarm for glucose transmitters and heart-rate monitors, speaking Bluetooth LE over raw HCI.",
        discussion: """
            Vigil is open-source DIY software, not a certified medical device.
            HCI transports (--hci): hciN (Linux user channel, the default hci0), tcp:HOST:PORT (H4 over TCP),
            serial:/dev/ttyX[@baud][,rtscts] (H4 over a UART), btsnoop:FILE (replay a capture, read-only).
            Exit codes: 0 success, 1 runtime failure, 64 usage error, 69 vigil not running (status), 78 configuration error.
            """,
        version: VigilVersion.string,
        subcommands: [ScanCommand.self, GATTCommand.self, RunCommand.self, DemoCommand.self, AlarmCommand.self,
                      ExportCommand.self,
                      ReportCommand.self,
                      SerialExportCommand.self, ConfigCommand.self, StatusCommand.self, WebCommand.self, FetchCommand.self])

    /// Why code could not be kept in small pages, if it could not: `vigil run` logs it (resident
    /// memory is the appliance's figure), the one-shot commands keep their output to what they
    /// were asked. qemu-user, which runs the arm64 build on the build machine, refuses both calls
    /// (docs/arm64-build.md).
    nonisolated(unsafe) static var codePagesFailure: String?

    static func main() {
        // Before anything else runs: resident memory is one of the appliance's figures. Set once
        // here, before any other code runs, and only read afterwards.
        do { try CodePages.keepSmall() } catch { codePagesFailure = "keeping code in small pages: \(error)" }
        main(nil)
    }
}

/// Options every command that talks to a controller shares.
struct ControllerOptions: ParsableArguments {
    @Option(name: .long, help: "HCI transport: hciN, tcp:HOST:PORT, serial:PATH[@BAUD][,rtscts] or btsnoop:FILE.")
    var hci: String = "hci0"

    @Option(name: .customLong("btsnoop-log"), help: "Write every HCI packet in and out to this btsnoop file.")
    var btsnoopLog: String?

    @Option(name: .customLong("log-level"), help: "debug, info, notice, warning or error.")
    var logLevel: String = "notice"

    @Option(name: .customLong("state-dir"), help: "Where bonds, our static address and remembered transmitters live.")
    var stateDirectory: String?

    func validate() throws {
        guard Logger.level(named: logLevel) != nil else {
            throw ValidationError("--log-level must be debug, info, notice, warning or error")
        }
        _ = try ControllerOptions.parseTransport(hci)
    }
}
