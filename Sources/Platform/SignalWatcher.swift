#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// Turns SIGINT, SIGTERM and SIGHUP into a readable descriptor for `PollLoop` (signalfd), so a
/// shutdown or reload request is handled between two packets, never inside one.
///
/// The signals are blocked in the calling thread and inherited by threads it starts later:
/// create the watcher at the top of `main`, before anything spawns a thread, or another thread
/// may still take the default action (terminate) for them. Closing the watcher leaves them
/// blocked on purpose: unblocking would let a late signal kill the process silently.
public final class SignalWatcher {
    /// The signals Vigil acts on. Raw values are the Linux numbers, the same on every architecture.
    public enum Signal: Int32, Sendable, CaseIterable, CustomStringConvertible {
        /// SIGHUP: reload configuration (or the terminal went away).
        case hangUp = 1
        /// SIGINT: Ctrl-C, stop.
        case interrupt = 2
        /// SIGTERM: systemd stop.
        case terminate = 15

        public var description: String {
            switch self {
            case .hangUp: "SIGHUP"
            case .interrupt: "SIGINT"
            case .terminate: "SIGTERM"
            }
        }
    }

    public private(set) var fileDescriptor: Int32
    public let signals: [Signal]

    /// Blocks `signals` and opens a non-blocking, close-on-exec signalfd for them.
    public init(signals: [Signal] = [.interrupt, .terminate, .hangUp]) throws(PlatformError) {
        let numbers = signals.map(\.rawValue)
        let fd = numbers.withUnsafeBufferPointer { vigil_signalfd_open($0.baseAddress, Int32($0.count)) }
        guard fd >= 0 else { throw .fromErrno("signalfd(\(signals.map(\.description).joined(separator: ", ")))") }
        self.fileDescriptor = fd
        self.signals = signals
    }

    deinit { close() }

    /// The next pending signal, or nil when none is pending.
    public func nextSignal() throws(PlatformError) -> Signal? {
        guard fileDescriptor >= 0 else { throw .system("read(signalfd)", errno: EBADF, hint: "the watcher is closed") }
        let number = vigil_signalfd_read(fileDescriptor)
        if number < 0 { throw .fromErrno("read(signalfd)") }
        if number == 0 { return nil }
        guard let signal = Signal(rawValue: number) else {
            throw PlatformError(operation: "read(signalfd)", errno: 0, reason: "signal \(number) arrived, which this watcher never asked for")
        }
        return signal
    }

    public func close() {
        guard fileDescriptor >= 0 else { return }
        closeDescriptor(fileDescriptor)
        fileDescriptor = -1
    }

    /// Sends `signal` to the calling thread only (tests: a process-wide signal could land on a
    /// thread that has not blocked it and end the test run).
    public static func raiseInCurrentThread(_ signal: Signal) throws(PlatformError) {
        if vigil_raise_in_this_thread(signal.rawValue) != 0 { throw .fromErrno("pthread_kill(\(signal))") }
    }
}
