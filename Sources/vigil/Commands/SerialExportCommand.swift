import App
import ArgumentParser
import Clocks
import History
import Platform

/// `vigil serial-export`: the serial export server on its own, without the appliance (a Pi
/// that only serves its history, a bench test, the interop tests). `vigil run` serves the same
/// through `SerialExportServer` when the configuration names a port.
struct SerialExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serial-export",
        abstract: "Serve the history read-only on a serial port (HELP, STATUS, EXPORT, REPORT).",
        discussion: """
            PORT is PATH or PATH@BAUD (default 115200), e.g. /dev/ttyGS0 (USB gadget serial) or /dev/ttyUSB0.
            Exit codes: 0 stopped (--seconds or a signal), 1 runtime failure, 64 usage error, 78 configuration error.
            """)

    @Argument(help: "The serial port: PATH[@BAUD].")
    var port: String

    @Option(help: "Stop after this many seconds (for tests).")
    var seconds: Int?

    @Flag(name: .customLong("no-echo"), help: "Do not echo typed commands back.")
    var noEcho = false

    @Option(name: .customLong("log-level"), help: "debug, info, notice, warning or error.")
    var logLevel: String = "info"

    @OptionGroup var history: HistoryOptions

    func validate() throws {
        guard SerialTarget(port) != nil else { throw ValidationError("PORT must be PATH or PATH@BAUD with a supported baud rate") }
        guard Logger.level(named: logLevel) != nil else { throw ValidationError("--log-level must be debug, info, notice, warning or error") }
        if let seconds, seconds < 1 { throw ValidationError("--seconds must be at least 1") }
    }

    func run() throws {
        guard let target = SerialTarget(port) else { throw ExitCode(64) }
        let logger = Logger(minimum: Logger.level(named: logLevel) ?? .info)
        let (database, utcOffset) = try history.resolve()
        let store = try HistoryOptions.openStore(path: database, command: "serial-export")
        let server = SerialExportServer(path: target.path, baud: target.baud, history: store,
                                        configuration: .init(utcOffset: utcOffset, echo: !noEcho), logger: logger)
        defer { server.close() }
        let signals = try? SignalWatcher(signals: [.interrupt, .terminate, .hangUp])
        defer { signals?.close() }
        let start = SystemClock.monotonicNow()
        let stopAt = seconds.map { start + .seconds($0) }
        server.open(at: start)
        while true {
            var loop = PollLoop()
            if let signals { loop.register(signals.fileDescriptor) }
            for fd in server.descriptors { loop.register(fd, readable: true, writable: server.wantsToWrite) }
            let deadline = [server.nextDeadline, stopAt].compactMap { $0 }.min()
            let events: [PollLoop.Event]
            do { events = try loop.wait(until: deadline) } catch {
                StandardError.write("vigil serial-export: \(error)")
                throw ExitCode(1)
            }
            let now = SystemClock.monotonicNow()
            for event in events {
                if event.fileDescriptor == signals?.fileDescriptor {
                    if let signal = try? signals?.nextSignal() { logger.log(.info, "stopped by \(signal)") }
                    return
                }
                if event.isReadable || event.isHangUp || event.isError || event.isInvalid {
                    server.readable(event.fileDescriptor, at: now, wallNow: SystemClock.wallNow())
                }
                if event.isWritable { server.writable(event.fileDescriptor, at: now) }
            }
            server.handleDeadline(at: now)
            if let stopAt, now >= stopAt { return }
        }
    }
}
