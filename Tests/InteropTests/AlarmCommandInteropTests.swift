import Foundation
import Testing

extension Interop {
    /// `vigil alarm test` as a person runs it: the built binary, stdin closed and stdout a pipe,
    /// so the console face prints plain lines (no redrawing) and the exit codes are the contract.
    /// Needs no rig: every case runs wherever the binary builds.
    @Suite struct AlarmCommandInteropTests {
        /// A configuration file whose only section is `[face]` with `face` in it, one per test.
        static func configuration(_ face: String) throws -> String {
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("vigil-alarm-test-\(UUID().uuidString).conf").path
            try "[face]\n\(face)\n".write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        @Test func consolePlaysThePatternAndExitsZero() throws {
            let config = try Self.configuration("backend = \"gpio\"")
            defer { try? FileManager.default.removeItem(atPath: config) }
            let result = try VigilProcess().run(["alarm", "test", "--backend", "console", "--config", config, "low"])
            #expect(!result.timedOut)
            #expect(result.exitCode == 0, "\(result.stderrText)")
            // stdout is not a terminal: no status line redrawn, no line per pulse.
            #expect(result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false) == [
                "no keyboard: the console button is off",
                "playing pattern low on console",
                "face: testing low",
                "done: pattern low played",
                "",
            ])
            #expect(!result.stdoutText.contains("\u{1B}"))
            // One burst of the low pattern (one pulse): well under the 2 s between patterns.
            #expect(result.duration < .seconds(3))
        }

        @Test func consoleFromTheConfigurationPlaysTheChirp() throws {
            let config = try Self.configuration("backend = \"console\"")
            defer { try? FileManager.default.removeItem(atPath: config) }
            let result = try VigilProcess().run(["alarm", "test", "--config", config])
            #expect(result.exitCode == 0, "\(result.stderrText)")
            #expect(result.stdoutText.contains("playing the start-up chirp on console\n"))
            #expect(result.stdoutText.hasSuffix("done: the start-up chirp played\n"))
        }

        @Test(.enabled(if: noGPIOChip, "this machine has a /dev/gpiochip*: the refusal cannot be provoked"))
        func gpioWithoutAChipExitsOneSayingSo() throws {
            let config = try Self.configuration("backend = \"console\"")
            defer { try? FileManager.default.removeItem(atPath: config) }
            let result = try VigilProcess().run(["alarm", "test", "--backend", "gpio", "--config", config, "high"])
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("no /dev/gpiochip* exists on this machine"), "\(result.stderrText)")
            #expect(result.stdoutText.isEmpty)
        }

        @Test func badFaceConfigurationExits78() throws {
            let config = try Self.configuration("backend = \"bogus\"")
            defer { try? FileManager.default.removeItem(atPath: config) }
            let result = try VigilProcess().run(["alarm", "test", "--config", config])
            #expect(result.exitCode == 78)
            #expect(result.stderrText.contains(":2:"), "the problem is reported at its line: \(result.stderrText)")
        }

        @Test func unknownPatternIsAUsageError() throws {
            let result = try VigilProcess().run(["alarm", "test", "--backend", "console", "loudest"])
            #expect(result.exitCode == 64)
            #expect(result.stderrText.contains("unknown pattern \"loudest\""), "\(result.stderrText)")
        }

        @Test func listNamesEveryPatternAndAll() throws {
            let result = try VigilProcess().run(["alarm", "test", "--list"])
            #expect(result.exitCode == 0)
            #expect(result.stdoutText
                == "high\nhigh-escalated\nmedium\nmedium-escalated\nlow\nlow-escalated\nall\n")
        }
    }
}
