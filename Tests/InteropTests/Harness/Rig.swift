import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One running Bumble rig (`Tests/Rigs/<script>`): a virtual controller on a TCP port that
/// `vigil --hci tcp:127.0.0.1:<port>` talks H4 to, and a simulated peripheral on the same
/// virtual radio.
///
/// Launch a fresh rig per test case (Bumble's controller keeps state across clients, see
/// docs/bumble-peer.md). The rig is always ended: `stop()` is idempotent and
/// `deinit` calls it; the rig also exits by itself when our end of its stdin pipe closes, so
/// not even a crashed test run leaves one behind.
final class Rig: @unchecked Sendable {
    let script: String
    /// The TCP port of the rig's HCI server, from its `READY <port>` line.
    let port: Int

    private let process: Process
    private let stdinPipe: Pipe
    private let stderrDrain: PipeDrain
    /// Signalled by the process's termination handler.
    private let exited: DispatchSemaphore
    private let state: LineCollector
    private let stopLock = NSLock()
    private var stopStatus: Int32?

    private init(script: String, port: Int, process: Process, stdinPipe: Pipe,
                 stderrDrain: PipeDrain, state: LineCollector, exited: DispatchSemaphore) {
        self.script = script
        self.port = port
        self.process = process
        self.stdinPipe = stdinPipe
        self.stderrDrain = stderrDrain
        self.state = state
        self.exited = exited
    }

    /// Starts `Tests/Rigs/<script>` with `--port 0` plus `arguments` and waits (bounded) for
    /// its `READY <port>` line. Throws with the rig's stderr when it never gets ready.
    static func launch(
        _ script: String = "heart_rate_monitor.py",
        arguments: [String] = [],
        readyTimeout: Duration = .seconds(15)
    ) throws -> Rig {
        try InteropEnvironment.requireBumble()
        let process = Process()
        process.executableURL = InteropEnvironment.pythonPath
        process.arguments = [InteropEnvironment.rigsDirectory.appendingPathComponent(script).path,
                             "--port", "0"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"
        environment["PYTHONDONTWRITEBYTECODE"] = "1"  // keep Tests/Rigs free of __pycache__
        process.environment = environment
        let stdinPipe = Pipe()
        let stdoutPipe = Pipe()
        let stderrPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe

        let state = LineCollector()
        let stderrDrain = PipeDrain(stderrPipe.fileHandleForReading)
        let exitedSignal = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in
            state.markExited()
            exitedSignal.signal()
        }
        do {
            try process.runWithCleanSignalMask()
        } catch {
            throw HarnessError.launchFailed("cannot launch rig \(script): \(error)")
        }
        stderrDrain.start()
        state.startReading(stdoutPipe.fileHandleForReading)

        guard let port = state.waitForReady(timeout: readyTimeout) else {
            // Not ready: end it now (no Rig object will exist to do it later).
            stdinPipe.fileHandleForWriting.closeFile()
            if process.isRunning { process.terminate() }
            if exitedSignal.wait(timeout: .now() + 3) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
            }
            let stderr = String(decoding: stderrDrain.finish(within: 2), as: UTF8.self)
            throw HarnessError.rigNotReady(
                "rig \(script) \(arguments) printed no READY line within \(readyTimeout); stderr:\n\(stderr.suffix(3_000))")
        }
        return Rig(script: script, port: port, process: process, stdinPipe: stdinPipe,
                   stderrDrain: stderrDrain, state: state, exited: exitedSignal)
    }

    deinit { stop() }

    /// Ends the rig: closes its stdin (its own clean-exit path), then SIGTERM, then SIGKILL.
    /// Returns its exit status; calling it again returns the same status.
    @discardableResult
    func stop() -> Int32 {
        // Its own lock (not the line collector's): the termination handler needs that one
        // while we wait here for it.
        stopLock.lock()
        defer { stopLock.unlock() }
        if let stopStatus { return stopStatus }
        stdinPipe.fileHandleForWriting.closeFile()
        if exited.wait(timeout: .now() + 3) == .timedOut {
            process.terminate()
            if exited.wait(timeout: .now() + 3) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                exited.wait()
            }
        }
        let status = process.terminationStatus
        stopStatus = status
        return status
    }

    var isRunning: Bool { !state.hasExited }

    /// The rig's process id, for tests of its signal handling.
    var processIdentifier: Int32 { process.processIdentifier }

    /// The rig's stderr so far (for failure messages).
    var stderrText: String { String(decoding: stderrDrain.finish(within: 0), as: UTF8.self) }

    /// Writes one line to the rig's stdin: the network rigs take their commands there
    /// (Tests/Rigs/https_rig.py; `command(_:)` sends one and waits for its acknowledgement).
    func send(line: String) throws {
        try stdinPipe.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Number of JSON lines seen so far: take it before an action, then read `records(since:)`.
    var lineCount: Int { state.count }

    /// Every JSON line the rig printed, parsed (the `READY` line is not among them).
    func records(since start: Int = 0) throws -> [JSONObject] {
        try state.lines(since: start).enumerated().map { index, line in
            try NDJSON.parseObject(line, line: start + index + 1)
        }
    }

    /// The `{"rig":...}` line describing what the rig serves (name, address, strings).
    func info() throws -> JSONObject {
        guard let info = try records().first(where: { $0.has("rig") }) else {
            throw HarnessError.malformedOutput("rig \(script) printed no {\"rig\":...} line")
        }
        return info
    }

    /// Waits (bounded) until a line since `start` satisfies `predicate`; nil on timeout.
    func waitFor(since start: Int = 0, timeout: Duration = .seconds(10),
                 _ predicate: (JSONObject) -> Bool) throws -> JSONObject? {
        let deadline = Date().addingTimeInterval(timeout.timeInterval)
        var seen = start
        while true {
            let fresh = try records(since: seen)
            if let match = fresh.first(where: predicate) { return match }
            seen += fresh.count
            if !state.waitForLines(beyond: seen, until: deadline) { return nil }
        }
    }
}

/// The rig's stdout, split into lines on a reader thread; guarded by one condition variable.
final class LineCollector: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [String] = []
    private var port: Int?
    private var exited = false
    private var eof = false

    func startReading(_ handle: FileHandle) {
        let thread = Thread { [self] in
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    accept(line.trimmingCharacters(in: .whitespaces))
                }
            }
            condition.withLock {
                eof = true
                condition.broadcast()
            }
        }
        thread.start()
    }

    private func accept(_ line: String) {
        guard !line.isEmpty else { return }
        condition.withLock {
            if line.hasPrefix("READY "), let port = Int(line.dropFirst("READY ".count)) {
                self.port = port
            } else {
                lines.append(line)
            }
            condition.broadcast()
        }
    }

    func markExited() {
        condition.withLock {
            exited = true
            condition.broadcast()
        }
    }

    var hasExited: Bool { condition.withLock { exited } }
    var count: Int { condition.withLock { lines.count } }

    func lines(since start: Int) -> [String] {
        condition.withLock { start < lines.count ? Array(lines[start...]) : [] }
    }

    func waitForReady(timeout: Duration) -> Int? {
        let deadline = Date().addingTimeInterval(timeout.timeInterval)
        return condition.withLock {
            while port == nil && !exited && !eof {
                if !condition.wait(until: deadline) { break }
            }
            return port
        }
    }

    /// Blocks until more than `count` lines exist; false at the deadline or when the rig is gone.
    func waitForLines(beyond count: Int, until deadline: Date) -> Bool {
        condition.withLock {
            while lines.count <= count {
                if eof || !condition.wait(until: deadline) { return lines.count > count }
            }
            return true
        }
    }
}
