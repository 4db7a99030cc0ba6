import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The outcome of one child process run to completion (or killed at its deadline).
struct ChildProcessResult: Sendable {
    var exitCode: Int32
    /// True when the child was still running at the deadline and had to be killed: its exit
    /// code is then the signal's, and the test should say "timed out", not "exit 143".
    var timedOut: Bool
    var stdout: Data
    var stderr: Data
    var duration: Duration
    /// True when the caller's `stopWhen` held and the child was asked to stop (SIGTERM) before
    /// its own end: what it was run for had happened, and its exit status is its answer to the
    /// signal (0 for `vigil run`, which stops cleanly on SIGTERM).
    var stoppedEarly = false

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var stderrText: String { String(decoding: stderr, as: UTF8.self) }

    /// stdout as NDJSON; a line that is not a JSON object is a contract violation by the
    /// program, reported with its exit status and stderr.
    func ndjson() throws -> [JSONObject] {
        do {
            return try NDJSON.parse(stdoutText)
        } catch {
            throw HarnessError.malformedOutput("stdout is not NDJSON: \(error)\n\(summary)")
        }
    }

    /// stdout as exactly one JSON object.
    func jsonDocument() throws -> JSONObject {
        do {
            return try NDJSON.parseDocument(stdoutText)
        } catch {
            throw HarnessError.malformedOutput("stdout is not one JSON document: \(error)\n\(summary)")
        }
    }

    /// A short account for failure messages: exit status and the tail of stderr.
    var summary: String {
        let status = timedOut ? "timed out after \(duration)"
            : "exit \(exitCode) after \(duration)\(stoppedEarly ? " (stopped by SIGTERM once what the test waited for arrived)" : "")"
        return "\(status); stderr tail:\n\(stderrText.suffix(2_000))"
    }
}

/// Runs a program with arguments, a hard timeout, stdin closed, and stdout/stderr captured
/// separately (so NDJSON on stdout is never interleaved with logs on stderr).
///
/// `stopWhen` ends a run as soon as what the test waits for has happened: it is asked (every
/// 50 ms, with the output so far) while the child runs, and once it holds the child gets SIGTERM.
/// The timeout stays the cap: a run whose awaited output never comes ends there, as before.
enum ChildProcess {
    /// How often `stopWhen` is asked: small against the seconds a run lasts, large against the
    /// cost of parsing what arrived since the last look.
    static let stopCheckInterval: Duration = .milliseconds(50)

    static func run(
        executable: URL,
        arguments: [String],
        environment: [String: String]? = nil,
        currentDirectory: URL? = nil,
        timeout: Duration,
        stopWhen: ((_ soFar: ChildProcessResult) -> Bool)? = nil
    ) throws -> ChildProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let stdoutPipe = Pipe()
        let stderrPipe = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe

        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }

        let stdoutReader = PipeDrain(stdoutPipe.fileHandleForReading)
        let stderrReader = PipeDrain(stderrPipe.fileHandleForReading)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try process.runWithCleanSignalMask()
        } catch {
            throw HarnessError.launchFailed("cannot launch \(executable.path): \(error)")
        }
        stdoutReader.start()
        stderrReader.start()

        var timedOut = false
        var stoppedEarly = false
        let end = start + timeout
        while true {
            let step = stopWhen == nil ? end - clock.now : min(end - clock.now, stopCheckInterval)
            if step > .zero, exited.wait(timeout: .now() + step.timeInterval) == .success { break }
            if clock.now >= end {
                timedOut = true
            } else if let stopWhen,
                stopWhen(ChildProcessResult(exitCode: -1, timedOut: false, stdout: stdoutReader.snapshot(),
                                            stderr: stderrReader.snapshot(), duration: clock.now - start)) {
                stoppedEarly = true
            } else {
                continue
            }
            process.terminate()  // SIGTERM first: let it flush and close its HCI socket
            if exited.wait(timeout: .now() + 3) == .timedOut {
                // Asked to stop and still running: a stop that does not work is a failure.
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
                exited.wait()
            }
            break
        }
        let duration = clock.now - start
        // The pipes reach EOF once the child (and anything it forked) closed them; bound the
        // wait anyway so a leaked grandchild cannot hang the test run.
        let stdout = stdoutReader.finish(within: 5)
        let stderr = stderrReader.finish(within: 5)
        return ChildProcessResult(
            exitCode: process.terminationStatus, timedOut: timedOut,
            stdout: stdout, stderr: stderr, duration: duration, stoppedEarly: stoppedEarly)
    }
}

extension Process {
    /// `run()` with an empty signal mask for the child.
    ///
    /// Foundation spawns on the calling thread and the child inherits that thread's mask;
    /// Swift concurrency's worker threads block nearly every signal (SIGTERM included), so a
    /// child launched from a test would ignore SIGTERM. Unblock around the spawn, then restore.
    func runWithCleanSignalMask() throws {
        var empty = sigset_t()
        sigemptyset(&empty)
        var previous = sigset_t()
        pthread_sigmask(SIG_SETMASK, &empty, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try run()
    }
}

/// Reads a pipe to EOF on its own thread, so a chatty child never blocks on a full pipe.
final class PipeDrain: @unchecked Sendable {
    private let handle: FileHandle
    private let lock = NSLock()
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) { self.handle = handle }

    func start() {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData  // blocks; empty at EOF
                if chunk.isEmpty { break }
                lock.withLock { data.append(chunk) }
            }
            done.signal()
        }
        thread.start()
    }

    /// Everything read so far, without waiting.
    func snapshot() -> Data { lock.withLock { data } }

    /// Everything read so far, after waiting up to `seconds` for EOF.
    func finish(within seconds: Double) -> Data {
        _ = done.wait(timeout: .now() + seconds)
        return lock.withLock { data }
    }
}

extension Duration {
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
