import Foundation
import Platform
import Testing

extension Interop {
    /// `vigil run` with `[export] serial`: the appliance answers the serial export protocol
    /// from its own history while it runs — here with no controller at all (its TCP port is
    /// closed), which must not stop the export from working.
    @Suite struct RunSerialExportInteropTests {
        @Test func theRunningApplianceAnswersOnItsSerialPort() throws {
            let fixture = try HistoryFixture()
            let pair = try PseudoTerminal.openPair()
            let config = try fixture.writeSerialExportConfig(serialPort: pair.secondaryPath)
            let run = try SerialExportInteropTests.Background(
                ["run", "--config", config, "--hci", "tcp:127.0.0.1:1", "--log-level", "info", "--seconds", "60"], in: fixture.directory)
            #expect(run.waitForLog("serial export: listening on \(pair.secondaryPath)"), "\(run.stderrText)")
            try pair.primary.write(Array("STATUS\r".utf8))
            let status = try SerialExportInteropTests.read(pair.primary, until: "\r\n.\r\n")
            #expect(status.contains("OK status\r\nreadings 2800\r\n"), "\(status)\n\(run.stderrText)")
            try pair.primary.write(Array("EXPORT ndjson 2026-11-01T00:00:00Z 2026-11-01T00:01:00Z\r".utf8))
            let export = try SerialExportInteropTests.read(pair.primary, until: "\r\n.\r\n")
            #expect(export.contains("OK export ndjson\r\n"), "\(export)")
            #expect(export.components(separatedBy: "\"kind\":").count - 1 == 2, "one glucose and one heart-rate reading in that minute: \(export)")
            // No controller: the appliance says so (and sounds it) but keeps serving.
            #expect(run.stderrText.contains("cannot open the Bluetooth controller"))
            #expect(run.stop() == 0, "\(run.stderrText)")
        }

        /// A client that stops reading mid-export (a laptop asleep on the gadget port): the
        /// export waits, but holds no read of the history while it does, so a checkpoint can
        /// still reset the WAL (an open statement kept it from that, and the appliance's
        /// commits grew it until the card was full). Read on later, the export is whole.
        @Test func aStalledExportHoldsNoReadOfTheHistory() throws {
            let fixture = try HistoryFixture(glucose: 20_000, heartRate: 0)
            let pair = try PseudoTerminal.openPair()
            let config = try fixture.writeSerialExportConfig(serialPort: pair.secondaryPath)
            let run = try SerialExportInteropTests.Background(
                ["run", "--config", config, "--hci", "tcp:127.0.0.1:1", "--log-level", "info", "--seconds", "90"], in: fixture.directory)
            defer { _ = run.stop() }
            #expect(run.waitForLog("serial export: listening on \(pair.secondaryPath)"), "\(run.stderrText)")
            try pair.primary.write(Array("EXPORT csv\r".utf8))
            // A first piece, then nothing read: the terminal's buffer fills and the export waits.
            let first = try SerialExportInteropTests.read(pair.primary, until: "2026-11-01T00:05:00+00:00")
            #expect(first.contains("OK export csv\r\n"), "\(first)")
            // The appliance writes to its history once it started (its controller fault).
            let walWritten = run.wait(upTo: .seconds(10)) {
                ((try? FileManager.default.attributesOfItem(atPath: fixture.database + "-wal")[.size] as? Int) ?? 0) > 0
            }
            try #require(walWritten, "nothing in the WAL: the check below would prove nothing")
            // The export cannot finish (a megabyte of CSV, nothing read), so it waits from the
            // moment the terminal's buffer is full: from then on a checkpoint resets the WAL,
            // where an open statement would keep it from that for as long as the export waits.
            var checkpoint = ""
            let reset = run.wait(upTo: .seconds(10)) {
                checkpoint = (try? Self.truncateWAL(fixture.database)) ?? ""
                return checkpoint.hasPrefix("(0, 0,")
            }
            #expect(reset, "the WAL could not be reset while the export waited: \(checkpoint)")

            let rest = try SerialExportInteropTests.read(pair.primary, until: "\r\n.\r\n", within: .seconds(60))
            let rows = (first + rest).components(separatedBy: "\r\n").filter { $0.hasPrefix("dexcom-811234,glucose,") }
            #expect(rows.count == 20_000, "\(rows.count) rows exported of 20,000")
            #expect(run.stop() == 0, "\(run.stderrText)")
        }

        /// `PRAGMA wal_checkpoint(TRUNCATE)` from another process that does not wait for
        /// readers: "(busy, log, checkpointed)".
        static func truncateWAL(_ database: String) throws -> String {
            let process = Process()
            let output = Pipe()
            process.executableURL = InteropEnvironment.pythonPath
            process.arguments = ["-c", "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1], timeout=0)\nprint(c.execute('PRAGMA wal_checkpoint(TRUNCATE)').fetchone())",
                                 database]
            process.standardOutput = output
            try process.run()
            process.waitUntilExit()
            return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }

        /// The history cannot be opened at start (here a directory stands where the file
        /// goes): the serial port waits for it rather than being given up, and answers from
        /// the history once a later attempt opens it.
        @Test func theSerialPortWaitsForAHistoryThatOpensLate() throws {
            let fixture = try HistoryFixture()
            let pair = try PseudoTerminal.openPair()
            let database = fixture.stateDirectory + "/history.sqlite"
            let kept = fixture.path("history.kept")
            try FileManager.default.moveItem(atPath: database, toPath: kept)
            try FileManager.default.createDirectory(atPath: database, withIntermediateDirectories: false)
            let config = try fixture.writeSerialExportConfig(serialPort: pair.secondaryPath)
            let run = try SerialExportInteropTests.Background(
                ["run", "--config", config, "--hci", "tcp:127.0.0.1:1", "--log-level", "info", "--seconds", "60"], in: fixture.directory)
            #expect(run.waitForLog("serial export: waits for the history to open"), "\(run.stderrText)")
            #expect(run.stderrText.contains("history: cannot open \(database)"), "\(run.stderrText)")
            #expect(!run.stderrText.contains("serial export: listening on"), "\(run.stderrText)")

            try FileManager.default.removeItem(atPath: database)
            try FileManager.default.moveItem(atPath: kept, toPath: database)
            #expect(run.waitForLog("history: opened \(database) at attempt 2", within: .seconds(20)), "\(run.stderrText)")
            #expect(run.waitForLog("serial export: listening on \(pair.secondaryPath)"), "\(run.stderrText)")
            try pair.primary.write(Array("STATUS\r".utf8))
            let status = try SerialExportInteropTests.read(pair.primary, until: "\r\n.\r\n")
            #expect(status.contains("OK status\r\nreadings 2800\r\n"), "\(status)\n\(run.stderrText)")
            #expect(run.stop() == 0, "\(run.stderrText)")
        }
    }
}
