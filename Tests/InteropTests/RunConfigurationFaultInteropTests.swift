import Foundation
import Testing

extension Interop {
    /// `vigil run` with a broken configuration: it refuses to start the appliance, says what is
    /// wrong with line numbers, and sounds the configuration fault on the face it can find.
    @Suite struct RunConfigurationFaultInteropTests {
        static func configuration(_ text: String) throws -> String {
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("vigil-run-fault-\(UUID().uuidString).conf").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        @Test func aBrokenConfigurationSoundsOnTheFaceItsFaceSectionNames() throws {
            let config = try Self.configuration("[bluetooth]\nhci = \"hci0\"\nbogus = 1\n\n[face]\nbackend = \"console\"\n")
            defer { try? FileManager.default.removeItem(atPath: config) }
            let result = try VigilProcess().run(["run", "--config", config, "--seconds", "2"])
            #expect(!result.timedOut)
            #expect(result.exitCode == 78)
            #expect(result.stderrText.contains("\(config):3:1: unknown key \"bogus\" in [bluetooth]"), "\(result.stderrText)")
            #expect(result.stdoutText.contains("ALARM fault:configuration-problem"), "\(result.stdoutText)")
            #expect(result.stdoutText.contains("face: fault:configuration-problem SOUNDING (medium)"), "\(result.stdoutText)")
            // It kept sounding until --seconds, not a blip.
            #expect(result.duration >= .seconds(2))
        }

        @Test func withoutAnyFaceItSaysSoAndExits() throws {
            let config = try Self.configuration("[bluetooth]\nbogus = 1\n\n[face]\nbackend = \"none\"\n")
            defer { try? FileManager.default.removeItem(atPath: config) }
            let result = try VigilProcess().run(["run", "--config", config, "--seconds", "30"])
            #expect(result.exitCode == 78)
            #expect(result.stderrText.contains("no buzzer or LED to show the configuration fault on"), "\(result.stderrText)")
            #expect(result.duration < .seconds(10))
        }
    }
}
