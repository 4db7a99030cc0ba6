import App
import ArgumentParser
import Clocks
import History
import Platform
import Readings

/// `vigil export`: the history's readings as CSV, JSON, NDJSON or Nightscout entries,
/// streamed a page at a time in constant memory, to a file (complete or absent: temp + rename)
/// or stdout; `--serial` fetches the same from an appliance over its serial export line;
/// `--usb` writes the whole bundle (CSV, Nightscout, report) to a mounted stick.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export readings from the history (or from an appliance over serial, or to a USB stick).",
        discussion: """
            Times (--since inclusive, --until exclusive) are ISO 8601: 2026-11-22 or 2026-11-22T07:05:00+01:00; \
            without an offset they are in --utc-offset.
            --serial PATH[@BAUD] sends EXPORT to an appliance's serial export port (default 115200 baud) and saves the answer.
            --usb MOUNTPOINT writes the bundle (readings.csv, nightscout-entries.json, report.svg/html, README) there.
            Exit codes: 0 exported, 1 runtime failure (no history, I/O, the appliance refused or went silent), \
            64 usage error, 78 configuration error, 128+N stopped by signal N (130 Ctrl-C, 143 SIGTERM; -o FILE is left unchanged).
            """)

    @Option(help: "csv, json, ndjson or nightscout.")
    var format: String = "csv"

    @Option(help: "Only readings at or after this time.")
    var since: String?

    @Option(help: "Only readings before this time.")
    var until: String?

    @Option(help: "Only this kind: \(Reading.Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var kind: String?

    @Option(help: "Only this device (its configured name).")
    var device: String?

    @Option(name: [.short, .customLong("output")], help: "Write here (atomically) instead of stdout.")
    var output: String?

    @Option(help: "Fetch from an appliance over this serial port: PATH[@BAUD].")
    var serial: String?

    @Option(help: "With --serial: give up when nothing arrives for this many seconds.")
    var timeout: Int = 10

    @Option(help: "Write the USB bundle into this mounted stick.")
    var usb: String?

    @Flag(name: .customLong("any-directory"), help: "With --usb: accept a directory that is not a mount point.")
    var anyDirectory = false

    @OptionGroup var history: HistoryOptions

    func validate() throws {
        do { _ = try ExportFormat(parsing: format) } catch { throw ValidationError("--format: \(error)") }
        if let kind, Reading.Kind(rawValue: kind) == nil {
            throw ValidationError("--kind must be one of \(Reading.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if serial != nil && usb != nil { throw ValidationError("--serial and --usb cannot be combined") }
        if let serial {
            guard SerialTarget(serial) != nil else { throw ValidationError("--serial must be PATH or PATH@BAUD with a supported baud rate") }
            if kind != nil || device != nil { throw ValidationError("--kind and --device cannot be sent over --serial (EXPORT takes a format and a time window)") }
            guard timeout > 0 else { throw ValidationError("--timeout must be at least 1 second") }
        }
        if usb != nil, output != nil || since != nil || until != nil || kind != nil || device != nil {
            throw ValidationError("--usb writes the whole bundle: it takes no -o, --since, --until, --kind or --device")
        }
        _ = try filter(utcOffset: .zero)
    }

    /// The filter the options describe; times without an offset are read at `utcOffset`.
    func filter(utcOffset: Duration) throws -> ExportFilter {
        func time(_ text: String?, _ name: String) throws -> WallClockTime? {
            guard let text else { return nil }
            do { return try ISO8601.parse(text, defaultOffset: utcOffset) } catch { throw ValidationError("--\(name): \(error)") }
        }
        let filter = ExportFilter(since: try time(since, "since"), until: try time(until, "until"),
                                  kind: kind.flatMap(Reading.Kind.init(rawValue:)), device: device.map { DeviceID($0) })
        if filter.isEmpty { throw ValidationError("--since must be before --until") }
        return filter
    }

    func run() throws {
        let format = try ExportFormat(parsing: self.format)
        if let serial, let target = SerialTarget(serial) {
            // The appliance's history and local time: only the window's offset is ours.
            let offset = try history.utcOffset.flatMap(HistoryOptions.parseOffset) ?? history.resolve().utcOffset
            let code = SerialExportClient(target: target, timeout: .seconds(timeout))
                .fetch(format: format, filter: try filter(utcOffset: offset), utcOffset: offset, output: output)
            if code != 0 { throw ExitCode(code) }
            return
        }
        let (database, utcOffset) = try history.resolve()
        let store = try HistoryOptions.openStore(path: database, command: "export")
        if let usb {
            let bundle = USBBundle(now: SystemClock.wallNow(), utcOffset: utcOffset)
            let result = USBExport.write(bundle, to: usb, history: store, requireMountPoint: !anyDirectory)
            guard result.succeeded else {
                StandardError.write("vigil export --usb: \(result)")
                throw ExitCode(1)
            }
            print(result)
            return
        }
        var source = HistoryPageSource(store: store)
        var stream = ExportStream(format: format, filter: try filter(utcOffset: utcOffset), utcOffset: utcOffset)
        // SIGTERM or Ctrl-C mid-way must not leave the temporary file behind (the default action
        // would end the process before `abandon`): the signals are read between two pages.
        let signals = try? SignalWatcher(signals: [.interrupt, .terminate, .hangUp])
        let sink: ExportSink
        do { sink = try ExportSink(path: output) } catch {
            StandardError.write("vigil export: \(error)")
            throw ExitCode(1)
        }
        var interruptedBy: SignalWatcher.Signal?
        do {
            while let piece = try stream.next(from: &source) {
                if let signal = try? signals?.nextSignal() {
                    interruptedBy = signal
                    break
                }
                try sink.write(piece)
            }
            if interruptedBy == nil { try sink.finish() }
        } catch {
            sink.abandon()
            StandardError.write("vigil export: \(error)" + (output.map { " (\($0) was left unchanged)" } ?? ""))
            throw ExitCode(1)
        }
        if let signal = interruptedBy {
            sink.abandon()
            StandardError.write("vigil export: interrupted by \(signal)" + (output.map { " (\($0) was left unchanged)" } ?? ""))
            // 128 + the signal's number: what a shell reports for a command a signal stopped.
            throw ExitCode(128 + signal.rawValue)
        }
    }
}

/// Where an export's bytes go: a file that appears whole at the end, or stdout.
final class ExportSink {
    private let file: AtomicFileWriter?

    /// A file at `path`, or stdout when nil (or "-").
    init(path: String?) throws(PlatformError) {
        if let path, path != "-" { file = try AtomicFileWriter(path: path) } else { file = nil }
    }

    func write(_ bytes: [UInt8]) throws(PlatformError) {
        if let file { try file.write(bytes) } else { try StandardOutputBytes.write(bytes) }
    }

    /// Makes the file appear at its path.
    func finish() throws(PlatformError) { try file?.commit() }

    /// Leaves the path as it was.
    func abandon() { file?.abandon() }
}

/// `PATH` or `PATH@BAUD` (default 115200, a rate `SerialPort` supports).
struct SerialTarget: Equatable {
    var path: String
    var baud: Int

    init?(_ text: String) {
        if let at = text.lastIndex(of: "@") {
            guard let baud = Int(text[text.index(after: at)...]), SerialPort.supportedBaudRates.contains(baud) else { return nil }
            path = String(text[..<at])
            self.baud = baud
        } else {
            path = text
            baud = 115_200
        }
        if path.isEmpty { return nil }
    }
}
