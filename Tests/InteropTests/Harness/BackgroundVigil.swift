import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The real `vigil` running in the background while a test injects a fault: stdout and stderr
/// go to files the test reads as they grow, and the test decides when to signal it.
/// The process is always ended (SIGKILL at deinit if it is still running).
final class BackgroundVigil {
    let process = Process()
    let directory: URL
    private var stdoutPath: String { directory.appendingPathComponent("stdout").path }
    private var stderrPath: String { directory.appendingPathComponent("stderr").path }

    /// `standardInput`: a terminal for the console face's keys (`PseudoTerminal`); none by default.
    /// `standardError`: where stderr goes instead of the file `stderrText` reads (a pipe
    /// nobody reads, for a stalled journal).
    /// `binary`: another build than `InteropEnvironment.vigilBinary()` (the dynamically linked
    /// debug one, say, where a test needs its slower pace).
    init(_ arguments: [String], environment: [String: String]? = nil, standardInput: FileHandle? = nil,
         standardError: FileHandle? = nil, binary: URL? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-bg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("stdout").path, contents: nil)
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("stderr").path, contents: nil)
        // A preloaded library needs the dynamically linked build (the release one is static).
        process.executableURL = try binary ?? InteropEnvironment.vigilBinary(dynamic: environment?["LD_PRELOAD"] != nil)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = standardInput ?? FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try standardError ?? FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.runWithCleanSignalMask()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    var stdoutText: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderrText: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Complete stdout lines parsed as JSON objects; a line still being written is left out,
    /// and so is any line that is not JSON (`vigil demo` prints its console face there too).
    var events: [JSONObject] {
        let text = stdoutText
        let complete = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
        return complete.split(separator: "\n").compactMap { try? NDJSON.parseObject(String($0), line: 0) }
    }

    /// Polls (every 20 ms) until `condition` holds; false at the limit or when vigil exited first.
    func wait(upTo limit: Duration, until condition: () -> Bool) -> Bool {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if condition() { return true }
            if !process.isRunning { return condition() }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }

    func waitForLog(_ text: String, upTo limit: Duration = .seconds(10)) -> Bool {
        wait(upTo: limit) { stderrText.contains(text) }
    }

    /// Sends `signal` now.
    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits (bounded) for the exit: its status, and whether a signal ended it.
    func waitForExit(upTo limit: Duration = .seconds(20)) -> (status: Int32, bySignal: Bool, timedOut: Bool) {
        let end = ContinuousClock.now + limit
        while process.isRunning, ContinuousClock.now < end { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return (process.terminationStatus, true, true)
        }
        return (process.terminationStatus, process.terminationReason == .uncaughtSignal, false)
    }

    /// SIGTERM, then SIGKILL after 5 s: the exit status (for `defer { daemon.stop() }`).
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { send(SIGTERM) }
        return waitForExit(upTo: .seconds(5)).status
    }

    var summary: String { "stderr tail:\n\(stderrText.suffix(3_000))\nstdout tail:\n\(stdoutText.suffix(2_000))" }
}
