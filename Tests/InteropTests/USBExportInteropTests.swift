import Foundation
import Testing

extension Interop {
    /// `vigil export --usb`: the bundle written through the built binary, and the quick, clear
    /// refusals for a missing mount point and a plain directory where no stick is mounted.
    /// (A read-only or a full stick needs a real mount: `USBStickMountInteropTests`.)
    @Suite struct USBExportInteropTests {
        @Test func bundleIsWrittenWholeWithTheSameCSVAsExport() throws {
            let fixture = try HistoryFixture()
            let stick = fixture.path("stick")
            try FileManager.default.createDirectory(atPath: stick, withIntermediateDirectories: false)
            let result = try VigilProcess().run(["export", "--database", fixture.database, "--usb", stick, "--any-directory", "--utc-offset", "+01:00"])
            #expect(result.exitCode == 0, "\(result.summary)")
            let entries = try FileManager.default.contentsOfDirectory(atPath: stick)
            #expect(entries.count == 1, "\(entries)")
            let folder = try #require(entries.first)
            #expect(folder.hasPrefix("vigil-20") && !folder.contains(":"))
            #expect(result.stdoutText.contains("wrote \(stick)/\(folder)"), "\(result.stdoutText)")
            let files = try FileManager.default.contentsOfDirectory(atPath: stick + "/" + folder).sorted()
            #expect(files == ["README.txt", "nightscout-entries.json", "readings.csv", "report.html", "report.svg"])
            let csv = try VigilProcess().run(["export", "--database", fixture.database, "--utc-offset", "+01:00"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: "\(stick)/\(folder)/readings.csv")) == csv.stdout)
            let entriesJSON = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(stick)/\(folder)/nightscout-entries.json")))
            #expect((entriesJSON as? [Any])?.count == fixture.glucoseCount)

            // A second bundle in the same minute gets its own folder; the first is untouched.
            let again = try VigilProcess().run(["export", "--database", fixture.database, "--usb", stick, "--any-directory", "--utc-offset", "+01:00"])
            #expect(again.exitCode == 0, "\(again.summary)")
            let after = try FileManager.default.contentsOfDirectory(atPath: stick)
            #expect(after.count == 2 && after.contains(folder) && after.allSatisfy { !$0.hasSuffix(".partial") }, "\(after)")
        }

        @Test func aMissingMountPointIsRefusedAtOnce() throws {
            let fixture = try HistoryFixture(glucose: 1, heartRate: 0)
            let stick = fixture.path("media/usb0")
            let result = try VigilProcess().run(["export", "--database", fixture.database, "--usb", stick])
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("\(stick) does not exist: is the stick plugged in and mounted?"), "\(result.stderrText)")
            #expect(result.duration < .seconds(5))
            #expect(!FileManager.default.fileExists(atPath: stick))
        }

        @Test func aPlainDirectoryIsNotTakenForAStick() throws {
            let fixture = try HistoryFixture(glucose: 1, heartRate: 0)
            let stick = fixture.path("usb0")
            try FileManager.default.createDirectory(atPath: stick, withIntermediateDirectories: false)
            let result = try VigilProcess().run(["export", "--database", fixture.database, "--usb", stick])
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("nothing is mounted at \(stick)"), "\(result.stderrText)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: stick).isEmpty)
        }

        @Test func aFileInsteadOfADirectoryIsRefused() throws {
            let fixture = try HistoryFixture(glucose: 1, heartRate: 0)
            let result = try VigilProcess().run(["export", "--database", fixture.database, "--usb", fixture.database])
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("is not a directory"), "\(result.stderrText)")
        }
    }
}
