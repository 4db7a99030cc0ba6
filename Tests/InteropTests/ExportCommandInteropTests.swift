import Foundation
import Testing

extension Interop {
    /// `vigil export` and `vigil report` as a person runs them: the built binary over a history
    /// the test fills through `HistoryStore` (HistoryFixture), exit codes and files as the contract.
    @Suite struct ExportCommandInteropTests {
        static func run(_ arguments: [String]) throws -> ChildProcessResult {
            try VigilProcess().run(arguments, timeout: .seconds(60))
        }

        static func lines(_ text: String, separator: String) -> [String] {
            text.components(separatedBy: separator).filter { !$0.isEmpty }
        }

        @Test func csvToAFileHasTheHeaderEveryReadingInTimeOrderAndLocalTimes() throws {
            let fixture = try HistoryFixture()
            let output = fixture.path("out.csv")
            let result = try Self.run(["export", "--database", fixture.database, "--format", "csv", "-o", output, "--utc-offset", "+01:00"])
            #expect(result.exitCode == 0, "\(result.summary)")
            #expect(result.stdoutText.isEmpty)
            let text = try String(contentsOfFile: output, encoding: .utf8)
            #expect(text.hasSuffix("\r\n"))
            let rows = Self.lines(text, separator: "\r\n")
            #expect(rows.first == "device,kind,value,unit,trend,time,sensor_time,sensor_run,origin,context")
            #expect(rows.count == 1 + fixture.glucoseCount + fixture.heartRateCount)
            // The first reading: glucose i = 0 at 2026-11-01T00:00:00Z, shown at +01:00.
            #expect(rows[1] == "dexcom-811234,glucose,80,mg/dL,Flat,2026-11-01T01:00:00+01:00,0,,live,")
            // Heart rate i = 0 at 00:00:30Z comes next, in wall-time order.
            #expect(rows[2] == "polar-h10,heart-rate,60,bpm,,2026-11-01T01:00:30+01:00,,,live,")
            // The last glucose (i = 2499: 80 + 99 mg/dL, 2499 × 300 s = 8 d 16 h 15 min later).
            #expect(rows.last == "dexcom-811234,glucose,179,mg/dL,Flat,2026-11-09T17:15:00+01:00,749700,,live,")
            // No temporary file is left beside it.
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).filter { $0.hasSuffix(".tmp") }
            #expect(leftovers.isEmpty)
        }

        @Test func stdoutCarriesTheSameBytesAsTheFile() throws {
            let fixture = try HistoryFixture(glucose: 1_200, heartRate: 0)
            let output = fixture.path("out.ndjson")
            let toFile = try Self.run(["export", "--database", fixture.database, "--format", "ndjson", "-o", output])
            let toStdout = try Self.run(["export", "--state-dir", fixture.stateDirectory, "--format", "ndjson", "--utc-offset", "Z"])
            #expect(toFile.exitCode == 0 && toStdout.exitCode == 0, "\(toFile.summary)\n\(toStdout.summary)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == toStdout.stdout)
            #expect(Self.lines(toStdout.stdoutText, separator: "\n").count == 1_200)
        }

        @Test func ndjsonWindowAndKindSelectExactlyTheMatchingReadings() throws {
            let fixture = try HistoryFixture()
            // [01:00Z, 02:00Z): glucose i = 12...23, heart rate i = 60...119.
            let result = try Self.run(["export", "--database", fixture.database, "--format", "ndjson", "--kind", "glucose",
                                       "--since", "2026-11-01T01:00:00Z", "--until", "2026-11-01T03:00:00+01:00"])
            #expect(result.exitCode == 0, "\(result.summary)")
            let objects = try result.ndjson()
            #expect(objects.count == 12)
            #expect(objects.allSatisfy { $0.string("kind") == "glucose" })
            #expect(objects.first?.string("device") == "dexcom-811234")
            let hr = try Self.run(["export", "--database", fixture.database, "--format", "ndjson", "--device", "polar-h10",
                                   "--since", "2026-11-01T01:00:00Z", "--until", "2026-11-01T02:00:00Z"])
            #expect(try hr.ndjson().count == 60)
        }

        @Test func jsonIsOneDocumentWithEveryReading() throws {
            let fixture = try HistoryFixture()
            let output = fixture.path("out.json")
            let result = try Self.run(["export", "--database", fixture.database, "--format", "json", "-o", output])
            #expect(result.exitCode == 0, "\(result.summary)")
            let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output)))
            let readings = try #require(Self.readingsArray(document))
            #expect(readings.count == fixture.glucoseCount + fixture.heartRateCount)
        }

        /// The array of readings, whether the document is the array itself or wraps it.
        static func readingsArray(_ document: Any) -> [Any]? {
            if let array = document as? [Any] { return array }
            if let object = document as? [String: Any] { return object.values.compactMap { $0 as? [Any] }.max { $0.count < $1.count } }
            return nil
        }

        @Test func nightscoutEntriesAreGlucoseOnlyWithNightscoutFields() throws {
            let fixture = try HistoryFixture()
            let output = fixture.path("entries.json")
            let result = try Self.run(["export", "--database", fixture.database, "--format", "nightscout", "-o", output])
            #expect(result.exitCode == 0, "\(result.summary)")
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [[String: Any]])
            #expect(entries.count == fixture.glucoseCount)
            let first = try #require(entries.first { ($0["date"] as? Int) == 1_793_491_200_000 })
            #expect(first["type"] as? String == "sgv")
            #expect(first["sgv"] as? Int == 80)
            #expect(first["direction"] as? String == "Flat")
        }

        @Test(arguments: [
            (["--format", "xml"], Int32(64), "unknown export format"),
            (["--since", "2026-11-02", "--until", "2026-11-01"], Int32(64), "--since must be before --until"),
            (["--since", "yesterday"], Int32(64), "--since"),
            (["--kind", "mood"], Int32(64), "--kind must be one of"),
            (["--utc-offset", "+25:00"], Int32(64), "--utc-offset"),
            (["--usb", "/tmp", "-o", "x.csv"], Int32(64), "--usb writes the whole bundle"),
            (["--serial", "/dev/null@12345"], Int32(64), "--serial must be"),
        ])
        func badCommandLinesAreUsageErrors(arguments: [String], code: Int32, message: String) throws {
            let fixture = try HistoryFixture(glucose: 1, heartRate: 0)
            let result = try Self.run(["export", "--database", fixture.database] + arguments)
            #expect(result.exitCode == code, "\(result.summary)")
            #expect(result.stderrText.contains(message), "\(result.stderrText)")
            #expect(result.stdoutText.isEmpty)
        }

        @Test func aMissingHistoryIsRefusedAndNotCreated() throws {
            let fixture = try HistoryFixture(glucose: 1, heartRate: 0)
            let missing = fixture.path("nothing/history.sqlite")
            let result = try Self.run(["export", "--database", missing])
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("no history at \(missing)"), "\(result.stderrText)")
            #expect(!FileManager.default.fileExists(atPath: missing))
        }

        @Test func anUnwritableOutputFailsAndLeavesNothing() throws {
            let fixture = try HistoryFixture(glucose: 10, heartRate: 0)
            let output = fixture.path("no-such-directory/out.csv")
            let result = try Self.run(["export", "--database", fixture.database, "-o", output])
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("no-such-directory"), "\(result.stderrText)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }

        @Test func aBadConfigurationIsExit78() throws {
            let fixture = try HistoryFixture(glucose: 1, heartRate: 0)
            let config = fixture.path("vigil.conf")
            try "[storage]\nstate-dir = \n[[[nonsense\n".write(toFile: config, atomically: true, encoding: .utf8)
            let result = try Self.run(["export", "--config", config])
            #expect(result.exitCode == 78, "\(result.summary)")
        }

        @Test func theConfigurationsStateDirectoryAndOffsetAreUsed() throws {
            let fixture = try HistoryFixture(glucose: 1, heartRate: 0)
            let config = fixture.path("vigil.conf")
            try "[storage]\nstate-dir = \"\(fixture.stateDirectory)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
            let result = try Self.run(["export", "--config", config])
            #expect(result.exitCode == 0, "\(result.summary)")
            #expect(result.stdoutText.contains("dexcom-811234,glucose,80,mg/dL,Flat,2026-11-01T00:00:00+00:00,0,,live,"), "\(result.stdoutText)")
        }
    }
}
