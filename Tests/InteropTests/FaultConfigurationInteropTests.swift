import Foundation
import Testing

extension Interop {
    /// An unreadable configuration, through the real `vigil run`: a directory, a file
    /// that is not UTF-8, a file that vanished (missing, or a dangling symlink), and a FIFO
    /// with nothing behind it. Each is exit 78 within seconds with the reason on stderr, after
    /// the configuration fault was sounded on the face that could be found. The broken *content*
    /// cases are in RunConfigurationFaultInteropTests.
    @Suite struct FaultConfigurationInteropTests {
        final class Scratch {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-config-fault-\(UUID().uuidString)")
            init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
            deinit { try? FileManager.default.removeItem(at: url) }
            func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        }

        static func run(config: String) throws -> ChildProcessResult {
            try VigilProcess().run(["run", "--config", config, "--hci", "tcp:127.0.0.1:1", "--seconds", "2"], timeout: .seconds(20))
        }

        /// With no readable text there is no `[face]` to honour: the default face is used. It
        /// is GPIO, which sounds on a Pi; a machine without a GPIO chip says it has nothing to
        /// sound on. Either way the fault was attempted, never skipped.
        static func expectFaultOnTheDefaultFace(_ result: ChildProcessResult, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(result.stderrText.contains("the configuration's [face] section is missing or broken too: using the default face"),
                    "\(result.summary)", sourceLocation: sourceLocation)
            let sounded = result.stdoutText.contains("ALARM fault:configuration-problem")
            let nothingToSoundOn = result.stderrText.contains("no buzzer or LED to show the configuration fault on")
            #expect(sounded || nothingToSoundOn, "\(result.summary)\n\(result.stdoutText)", sourceLocation: sourceLocation)
        }

        static func expectRefused(_ result: ChildProcessResult, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(!result.timedOut, "vigil hung on the configuration: \(result.summary)", sourceLocation: sourceLocation)
            #expect(result.exitCode == 78, "\(result.summary)", sourceLocation: sourceLocation)
            #expect(result.duration < .seconds(10), "\(result.summary)", sourceLocation: sourceLocation)
        }

        @Test func aDirectoryIsRefusedWithItsReason() throws {
            let scratch = try Scratch()
            let result = try Self.run(config: scratch.url.path)
            Self.expectRefused(result)
            #expect(result.stderrText.contains("vigil: cannot read the configuration: read(\(scratch.url.path)) failed: Is a directory (EISDIR)"),
                    "\(result.stderrText)")
            Self.expectFaultOnTheDefaultFace(result)
        }

        @Test func aMissingFileIsRefusedWithItsReason() throws {
            let scratch = try Scratch()
            let missing = scratch.path("gone.conf")
            let result = try Self.run(config: missing)
            Self.expectRefused(result)
            #expect(result.stderrText.contains("vigil: cannot read the configuration: open(\(missing)) failed: No such file or directory (ENOENT)"),
                    "\(result.stderrText)")
            Self.expectFaultOnTheDefaultFace(result)
        }

        /// A file that vanished from under its symlink (a config kept on a stick that was pulled).
        @Test func aDanglingSymlinkIsRefusedWithItsReason() throws {
            let scratch = try Scratch()
            let link = scratch.path("vigil.conf")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: scratch.path("removed.conf"))
            let result = try Self.run(config: link)
            Self.expectRefused(result)
            #expect(result.stderrText.contains("open(\(link)) failed: No such file or directory (ENOENT)"), "\(result.stderrText)")
            Self.expectFaultOnTheDefaultFace(result)
        }

        /// A FIFO with no writer: open(2) would block for ever. It must be refused at once.
        @Test func aFIFOWithNothingBehindItDoesNotHang() throws {
            let scratch = try Scratch()
            let fifo = scratch.path("vigil.conf")
            try #require(mkfifo(fifo, 0o600) == 0, "mkfifo: errno \(errno)")
            let result = try Self.run(config: fifo)
            Self.expectRefused(result)
            #expect(result.stderrText.contains("open(\(fifo)) failed: it is a FIFO (named pipe), not a file"), "\(result.stderrText)")
            Self.expectFaultOnTheDefaultFace(result)
        }

        /// Bytes that are not UTF-8 (a Latin-1 "é" in a comment) are refused with the line,
        /// not decoded into U+FFFD and run with. The `[face]` section itself is readable, so the
        /// fault sounds on the console face it names.
        @Test func invalidUTF8IsRefusedWithItsLineAndSoundsOnTheNamedFace() throws {
            let scratch = try Scratch()
            let config = scratch.path("vigil.conf")
            var bytes = Array("[face]\nbackend = \"console\"\n\n# caf".utf8)
            bytes += [0xE9]  // ISO 8859-1 é: a lone lead byte in UTF-8
            bytes += Array(" au lait\n[bluetooth]\nscan = \"active\"\n".utf8)
            try Data(bytes).write(to: URL(fileURLWithPath: config))
            let result = try Self.run(config: config)
            Self.expectRefused(result)
            #expect(result.stderrText.contains("\(config):4: not valid UTF-8: save the file as UTF-8"), "\(result.stderrText)")
            #expect(result.stdoutText.contains("ALARM fault:configuration-problem"), "\(result.stdoutText)")
            #expect(result.duration >= .seconds(2), "sounded until --seconds, not a blip")
        }
    }
}
