import Foundation
import Testing

/// `VigilProcess`/`ChildProcess` against /bin/sh, so the harness is proven before the binary
/// exists: separate streams, exit codes, and a timeout that really kills.
@Suite struct ChildProcessTests {
    let shell = URL(fileURLWithPath: "/bin/sh")

    @Test func capturesStdoutAndStderrSeparatelyWithExitCode() throws {
        let vigil = try VigilProcess(binary: shell)
        let result = try vigil.run(["-c", "echo '{\"a\":1}'; echo log line >&2; echo '{\"a\":2}'; exit 3"])
        #expect(result.exitCode == 3)
        #expect(result.timedOut == false)
        #expect(try NDJSON.parse(result.stdoutText).compactMap { $0.int("a") } == [1, 2], "\(result.stdoutText)")
        #expect(result.stderrText == "log line\n")
    }

    @Test func largeOutputDoesNotDeadlockOnAFullPipe() throws {
        // 1 MiB on each stream: more than a pipe buffer (64 KiB), read concurrently.
        let result = try ChildProcess.run(
            executable: shell,
            arguments: ["-c", "head -c 1048576 /dev/zero; head -c 1048576 /dev/zero >&2"],
            timeout: .seconds(20))
        #expect(result.exitCode == 0)
        #expect(result.stdout.count == 1_048_576)
        #expect(result.stderr.count == 1_048_576)
    }

    @Test func timeoutKillsAndSaysSo() throws {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try ChildProcess.run(
            executable: shell, arguments: ["-c", "echo started; exec sleep 30"], timeout: .milliseconds(500))
        #expect(result.timedOut)
        #expect(result.stdoutText == "started\n")
        // SIGTERM must work: the 3 s SIGKILL fallback would show up here.
        #expect(clock.now - start < .seconds(3))
        #expect(result.summary.contains("timed out"))
    }

    @Test func stopWhenEndsTheRunOnceItsOutputArrived() throws {
        let clock = ContinuousClock()
        let start = clock.now
        // The shell's trap makes SIGTERM a clean exit, as vigil's own handler does.
        let result = try ChildProcess.run(
            executable: shell, arguments: ["-c", "trap 'exit 0' TERM; echo '{\"a\":1}'; echo '{\"a\":2}'; while :; do sleep 0.1; done"],
            timeout: .seconds(30),
            stopWhen: { [stream = NDJSONStream()] soFar in stream.update(soFar.stdout).count >= 2 })
        #expect(result.stoppedEarly && !result.timedOut && result.exitCode == 0, "\(result.summary)")
        #expect(try NDJSON.parse(result.stdoutText).compactMap { $0.int("a") } == [1, 2])
        #expect(clock.now - start < .seconds(5))
    }

    @Test func aStopConditionThatNeverHoldsLeavesTheTimeout() throws {
        let result = try ChildProcess.run(
            executable: shell, arguments: ["-c", "echo started; exec sleep 30"], timeout: .milliseconds(500),
            stopWhen: { _ in false })
        #expect(result.timedOut && !result.stoppedEarly)
    }

    @Test func childStartsWithNoBlockedSignals() throws {
        // Swift's worker threads block most signals and Foundation's posix_spawn passes that
        // mask on; a child that cannot see SIGTERM would only die at the SIGKILL fallback.
        let result = try ChildProcess.run(
            executable: shell, arguments: ["-c", "grep SigBlk /proc/self/status"], timeout: .seconds(5))
        #expect(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "SigBlk:\t0000000000000000")
    }

    @Test func missingExecutableIsALaunchError() {
        #expect(throws: HarnessError.self) {
            try ChildProcess.run(executable: URL(fileURLWithPath: "/nonexistent/vigil"), arguments: [],
                                 timeout: .seconds(1))
        }
    }
}
