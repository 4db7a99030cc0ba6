import App
import ArgumentParser
import Clocks
import Host
import Platform

struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Show nearby Bluetooth LE devices, duplicates folded, until Ctrl-C or --seconds.")

    @OptionGroup var controller: ControllerOptions

    @Option(help: "Stop after this many seconds.")
    var seconds: Double?

    @Flag(help: "Print one JSON object per line whenever a device is first seen or its data changes.")
    var json = false

    @Flag(help: "Passive scanning (no scan requests; scan responses are not received).")
    var passive = false

    func run() throws {
        let logger = Logger(minimum: Logger.level(named: controller.logLevel)!)
        var session = ScanSession(active: !passive, json: json, live: !json && Terminal.isTerminal(fd: 1))
        let code = try controller.runSession(&session, logger: logger, seconds: seconds, reopen: false)
        if !json && code == 0 {
            if session.live { print("\u{1B}[H\u{1B}[2J", terminator: "") }
            print(session.table.table())
        }
        if code != 0 { throw ExitCode(code) }
    }
}

/// `vigil scan` as a host session.
struct ScanSession: HostSession {
    let active: Bool
    let json: Bool
    /// Redraw the table once a second (stdout is a terminal).
    let live: Bool
    var table = ScanTable()
    var exitCode: Int32 = 0
    var isFinished: Bool { false }
    var nextRedraw: MonotonicInstant?
    var nextDeadline: MonotonicInstant? { live ? nextRedraw : nil }

    mutating func controllerReady(host: inout Host, at now: MonotonicInstant) {
        host.startScanning(active: active, at: now)
        nextRedraw = now + .seconds(1)
    }

    mutating func handle(_ event: Host.Event, host: inout Host, at now: MonotonicInstant) {
        switch event {
        case .advertisement(let a):
            table.update(a)
            if json {
                print(ScanTable.json(a).rendered)
                StandardOutput.flush()
            }
        case .controllerFailed:
            exitCode = 1
        default:
            break
        }
    }

    mutating func handleDeadline(host: inout Host, at now: MonotonicInstant) {
        guard live, let due = nextRedraw, now >= due else { return }
        nextRedraw = now + .seconds(1)
        print("\u{1B}[H\u{1B}[2J" + table.table() + "\n\(table.rows.count) device(s); Ctrl-C to stop")
        StandardOutput.flush()
    }
}
