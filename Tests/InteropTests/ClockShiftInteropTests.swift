import Foundation
import Testing

extension Interop {
    /// The wall clock a day ahead across a restart: `vigil run` reads the shift an
    /// earlier run saw from `clock-shift` in the state directory (retention then ages rows by
    /// the clock as it ran before the step: HistoryStoreClockJumpTests), and a file that is
    /// not a whole number of seconds is said and ignored, never fatal.
    @Suite struct ClockShiftInteropTests {
        static func run(clockShift: String) throws -> ChildProcessResult {
            let state = try StateDirectory()
            try clockShift.write(to: state.url.appendingPathComponent("clock-shift"), atomically: true, encoding: .utf8)
            let config = try state.writeConfig("[face]\nbackend = \"none\"\n")
            return try VigilProcess().run(["run", "--config", config.path, "--hci", "tcp:127.0.0.1:1", "--state-dir", state.url.path,
                                           "--log-level", "info", "--seconds", "2"], timeout: .seconds(30))
        }

        @Test func aShiftSavedByAnEarlierRunIsTakenUp() throws {
            let result = try Self.run(clockShift: "86400\n")
            #expect(result.exitCode == 0, "\(result.summary)")
            #expect(result.stderrText.contains("the wall clock stepped by 86400.0 seconds in an earlier run"), "\(result.summary)")
        }

        @Test func aBrokenFileIsSaidAndIgnored() throws {
            let result = try Self.run(clockShift: "a day\n")
            #expect(result.exitCode == 0, "\(result.summary)")
            #expect(result.stderrText.contains("clock-shift: not a whole number of seconds"), "\(result.summary)")
            #expect(!result.stderrText.contains("in an earlier run"), "\(result.summary)")
        }
    }
}
