import App
import Clocks
import History
import Platform

/// The appliance's serial export port: a tty (the USB gadget's /dev/ttyGS0 on a Pi
/// Zero 2 W, or a USB-serial adapter) opened raw, whose bytes feed a `SerialExportSession`
/// over the history. Read-only by construction: it holds only a `HistoryPageSource`, which
/// reads.
///
/// The owner's poll loop drives it:
/// - register `descriptors` for reading, and for writing while `wantsToWrite`;
/// - call `readable(_:at:wallNow:)` for any event on one of them (readable, hang-up, error);
/// - call `writable(_:at:)` when one can take bytes: at most `bytesPerTurn` are written, so a
///   year-long export never holds the loop for more than one page of work;
/// - call `handleDeadline(at:)` at `nextDeadline` (reopening the port after a hang-up);
/// - `close()` at the end.
///
/// A hang-up or EIO (the USB host unplugged, a terminal closed) drops the session and its
/// half-written answer quietly and reopens the port `reopenDelay` later: nothing else holds
/// state for the client, so a disconnect mid-export costs nothing.
final class SerialExportServer {
    let path: String
    let baud: Int
    let configuration: SerialExportSession.Configuration
    let reopenDelay: Duration
    /// Bytes written per `writable` call at most.
    let bytesPerTurn: Int
    private let logger: Logger
    private var source: HistoryPageSource
    private var session: SerialExportSession
    private var port: (any ByteTransport)?
    private var outgoing: [UInt8] = []
    private var sent = 0
    private var buffer: [UInt8] = []
    private var lastOpenFailure: String?
    private(set) var nextDeadline: MonotonicInstant?

    init(path: String, baud: Int = 115_200, history: HistoryStore,
         configuration: SerialExportSession.Configuration = SerialExportSession.Configuration(),
         logger: Logger, reopenDelay: Duration = .seconds(2), bytesPerTurn: Int = 16 * 1024) {
        self.path = path
        self.baud = baud
        self.configuration = configuration
        self.reopenDelay = reopenDelay
        self.bytesPerTurn = max(1, bytesPerTurn)
        self.logger = logger
        source = HistoryPageSource(store: history)
        session = SerialExportSession(configuration: configuration)
    }

    /// The tty's descriptor while it is open.
    var descriptors: [Int32] { port.map { [$0.fileDescriptor] } ?? [] }

    var isOpen: Bool { port != nil }

    /// True while an answer (or an echo) waits to be written: register write interest then.
    var wantsToWrite: Bool { port != nil && (sent < outgoing.count || session.hasOutput) }

    /// Opens the port; on failure tries again at `now + reopenDelay` (the gadget's tty appears
    /// only once the USB host enumerates it). Logs a failure once, not every retry.
    func open(at now: MonotonicInstant) {
        guard port == nil else { return }
        do {
            port = try SerialPort.open(path: path, baud: baud, flowControl: false)
            nextDeadline = nil
            lastOpenFailure = nil
            logger.log(.info, "serial export: listening on \(path) at \(baud) baud")
        } catch {
            let reason = "\(error)"
            if reason != lastOpenFailure { logger.log(.warning, "serial export: cannot open \(path): \(reason); retrying every \(reopenDelay)") }
            lastOpenFailure = reason
            nextDeadline = now + reopenDelay
        }
    }

    /// Reads what arrived on the tty and hands it to the session (a hang-up ends the session).
    func readable(_ fileDescriptor: Int32, at now: MonotonicInstant, wallNow: WallClockTime) {
        guard let port, port.fileDescriptor == fileDescriptor else { return }
        // A few reads at most per turn, so a flood of input cannot hold the loop.
        for _ in 0..<4 {
            let count: Int
            do {
                count = try port.read(into: &buffer, maxCount: 4096)
            } catch where error.isWouldBlock {
                return
            } catch {
                hangUp(at: now, because: "\(error)")
                return
            }
            guard count > 0 else {
                hangUp(at: now, because: "hung up")
                return
            }
            session.receive(buffer, wallNow: wallNow)
        }
    }

    /// Writes up to `bytesPerTurn` of pending output, asking the session for more as it drains.
    func writable(_ fileDescriptor: Int32, at now: MonotonicInstant) {
        guard let port, port.fileDescriptor == fileDescriptor else { return }
        var budget = bytesPerTurn
        // Empty pieces (a report gathering its pages) count against the turn too.
        var pieces = 0
        while budget > 0 {
            if sent == outgoing.count {
                guard session.hasOutput, pieces < 8 else { return }
                outgoing = session.nextOutput(from: &source)
                sent = 0
                pieces += 1
                continue
            }
            let written: Int
            do {
                written = try NonBlockingWrite.write(fileDescriptor, outgoing[sent..<min(outgoing.count, sent + budget)])
            } catch {
                hangUp(at: now, because: "\(error)")
                return
            }
            if written == 0 { return }  // the tty is full: poll says when it drains
            sent += written
            budget -= written
        }
    }

    /// Reopens the port when it is due.
    func handleDeadline(at now: MonotonicInstant) {
        guard let deadline = nextDeadline, now >= deadline else { return }
        nextDeadline = nil
        open(at: now)
    }

    /// Closes the port and drops any answer in progress.
    func close() {
        port?.close()
        port = nil
        nextDeadline = nil
        resetSession()
    }

    private func hangUp(at now: MonotonicInstant, because reason: String) {
        let wasBusy = wantsToWrite
        port?.close()
        port = nil
        resetSession()
        logger.log(.info, "serial export: \(path) \(reason)\(wasBusy ? " mid-answer: the answer was dropped" : ""); reopening in \(reopenDelay)")
        nextDeadline = now + reopenDelay
    }

    private func resetSession() {
        session = SerialExportSession(configuration: configuration)
        source.close()
        outgoing = []
        sent = 0
    }
}
