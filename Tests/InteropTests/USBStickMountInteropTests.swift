import Foundation
import Testing

/// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN, as in CI's container): the
/// read-only and full sticks below are real mounts, so they are skipped, and say so, elsewhere.
private let canMount: Bool = {
    let probe = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-mount-probe-\(UUID().uuidString)").path
    guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: false)) != nil else { return false }
    defer { try? FileManager.default.removeItem(atPath: probe) }
    guard Interop.USBStickMountInteropTests.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]) == 0 else { return false }
    _ = Interop.USBStickMountInteropTests.run("/bin/umount", [probe])
    return true
}()

extension Interop {
    /// The double press's bundle onto a stick that cannot take it: a read-only stick (the
    /// write-protect switch) and a full one. Each is refused clearly, quickly, and leaves no
    /// half-written folder behind.
    @Suite(.enabled(if: canMount, "mounting a tmpfs is not permitted here: the read-only and full sticks cannot be made"))
    struct USBStickMountInteropTests {
        static func run(_ tool: String, _ arguments: [String]) -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return -1 }
            process.waitUntilExit()
            return process.terminationStatus
        }

        /// A tmpfs mounted at a fresh directory for the test's length.
        final class Stick {
            let path: String
            init(in fixture: HistoryFixture, options: String) throws {
                path = fixture.path("stick-\(UUID().uuidString.prefix(8))")
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
                let status = USBStickMountInteropTests.run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", path])
                #expect(status == 0, "mount -o \(options) failed")
            }
            deinit { _ = USBStickMountInteropTests.run("/bin/umount", [path]) }
        }

        @Test func aReadOnlyStickIsRefusedAndNothingIsWritten() throws {
            let fixture = try HistoryFixture(glucose: 300, heartRate: 0)
            let stick = try Stick(in: fixture, options: "ro,size=1m")
            let result = try VigilProcess().run(["export", "--database", fixture.database, "--usb", stick.path])
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("\(stick.path) is mounted read-only (write-protect switch?)"), "\(result.stderrText)")
            #expect(result.duration < .seconds(5))
            #expect(try FileManager.default.contentsOfDirectory(atPath: stick.path).isEmpty)
        }

        @Test func aFullStickIsSaidAndLeavesNoPartialFolder() throws {
            // 2,500 glucose readings make a bundle far larger than 16 KiB.
            let fixture = try HistoryFixture(glucose: 2_500, heartRate: 300)
            let stick = try Stick(in: fixture, options: "size=16k")
            let result = try VigilProcess().run(["export", "--database", fixture.database, "--usb", stick.path])
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("the stick at \(stick.path) is full: nothing was written"), "\(result.stderrText)")
            #expect(result.duration < .seconds(5))
            #expect(try FileManager.default.contentsOfDirectory(atPath: stick.path).isEmpty, "the partial folder is removed")
        }
    }
}
