import Foundation
import Testing

extension Interop {
    /// `packaging/vigil.service` checked by systemd's own verifier, and the built `vigil run`
    /// speaking the notification protocol to a socket the test binds, as systemd would.
    @Suite struct SystemdUnitInteropTests {
        static let analyzer = "/usr/bin/systemd-analyze"

        /// `systemd-analyze verify` on a copy of the unit whose ExecStart names the built binary
        /// (verify rejects a unit whose executable does not exist, and /usr/bin/vigil is not
        /// installed here). Skipped, with the reason, where systemd-analyze is not installed.
        @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: analyzer),
                       "systemd-analyze is not installed (apt-get install systemd)"))
        func unitPassesSystemdAnalyzeVerify() throws {
            let unit = InteropEnvironment.repositoryRoot.appendingPathComponent("packaging/vigil.service")
            let text = try String(contentsOf: unit, encoding: .utf8)
            #expect(text.contains("ExecStart=/usr/bin/vigil run --config /etc/vigil/vigil.conf\n"))
            #expect(text.contains("Type=notify\n"))
            #expect(text.contains("WatchdogSec=30\n"))
            let binary = try InteropEnvironment.vigilBinary()
            let copy = text.replacingOccurrences(of: "ExecStart=/usr/bin/vigil ", with: "ExecStart=\(binary.path) ")
            let directory = try Self.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/vigil.service"
            try copy.write(toFile: path, atomically: true, encoding: .utf8)
            let result = try ChildProcess.run(executable: URL(fileURLWithPath: Self.analyzer), arguments: ["verify", path],
                                              timeout: .seconds(30))
            #expect(result.exitCode == 0, "\(result.stderrText)")
            // verify also warns (exit 0) about unknown keys and bad values: none allowed.
            #expect(!result.stderrText.contains("vigil.service"), "\(result.stderrText)")
        }

        /// No controller answers at tcp:127.0.0.1:1, so the watchdog must still be fed from the
        /// event loop, STOPPING=1 must come on SIGTERM, and READY=1 must NOT be sent: readiness
        /// means the radio works, and a Type=notify unit should stay "activating" until it does.
        @Test func runFeedsTheWatchdogAndSaysStoppingButNotReadyWithoutAController() throws {
            let directory = try Self.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let socketPath = directory + "/notify"
            let receiver = try NotifySocket(path: socketPath)
            let config = directory + "/vigil.conf"
            try "[face]\nbackend = \"none\"\n".write(toFile: config, atomically: true, encoding: .utf8)

            let process = Process()
            process.executableURL = try InteropEnvironment.vigilBinary()
            process.arguments = ["run", "--config", config, "--hci", "tcp:127.0.0.1:1", "--state-dir", directory + "/state"]
            var environment = ProcessInfo.processInfo.environment
            environment["NOTIFY_SOCKET"] = socketPath
            environment["WATCHDOG_USEC"] = "200000"
            environment.removeValue(forKey: "WATCHDOG_PID")
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

            var datagrams: [String] = []
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .seconds(1) {
                if let datagram = receiver.receive(timeoutMilliseconds: 100) { datagrams.append(datagram) }
            }
            let watchdogs = datagrams.filter { $0 == "WATCHDOG=1" }.count
            // Every 100 ms (half of 200 ms) for a second: at least two even on a loaded machine.
            #expect(watchdogs >= 2, "\(datagrams)")
            #expect(process.isRunning)

            kill(process.processIdentifier, SIGTERM)
            var stopping = false
            let stopStart = ContinuousClock.now
            while !stopping, ContinuousClock.now - stopStart < .seconds(10) {
                if let datagram = receiver.receive(timeoutMilliseconds: 100) {
                    datagrams.append(datagram)
                    stopping = datagram == "STOPPING=1"
                }
            }
            process.waitUntilExit()
            #expect(stopping, "\(datagrams)")
            #expect(!datagrams.contains { $0.split(separator: "\n").contains("READY=1") }, "\(datagrams)")
        }

        /// With a controller (the Bumble rig's virtual one) READY=1 comes with a STATUS line in
        /// one datagram, once, and STOPPING=1 when the run ends.
        @Test(bumbleRequired) func runSaysReadyOnceTheControllerAnswers() throws {
            let rig = try Rig.launch()
            let directory = try Self.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let socketPath = directory + "/notify"
            let receiver = try NotifySocket(path: socketPath)
            let config = directory + "/vigil.conf"
            try "[face]\nbackend = \"none\"\n".write(toFile: config, atomically: true, encoding: .utf8)
            var environment = ProcessInfo.processInfo.environment
            environment["NOTIFY_SOCKET"] = socketPath
            environment.removeValue(forKey: "WATCHDOG_USEC")
            let result = try ChildProcess.run(
                executable: try InteropEnvironment.vigilBinary(),
                arguments: ["run"] + VigilProcess.hci(rig) + ["--config", config, "--state-dir", directory + "/state", "--seconds", "2"],
                environment: environment, timeout: .seconds(30))
            #expect(result.exitCode == 0, "\(result.stderrText)")
            var datagrams: [String] = []
            while let datagram = receiver.receive(timeoutMilliseconds: 200) { datagrams.append(datagram) }
            let ready = datagrams.filter { $0.split(separator: "\n").first == "READY=1" }
            #expect(ready.count == 1, "\(datagrams)")
            #expect(ready.first?.split(separator: "\n").dropFirst().first?.hasPrefix("STATUS=") == true, "\(datagrams)")
            #expect(datagrams.last == "STOPPING=1", "\(datagrams)")
            // No WATCHDOG_USEC: no watchdog datagrams.
            #expect(!datagrams.contains("WATCHDOG=1"), "\(datagrams)")
        }

        static func temporaryDirectory() throws -> String {
            // Short: sun_path holds 108 bytes.
            let path = "/tmp/vigil-sd-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return path
        }
    }
}

/// An AF_UNIX datagram socket bound at a path: what systemd's NOTIFY_SOCKET is.
private final class NotifySocket {
    let fd: Int32

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }

    deinit { close(fd) }

    /// One datagram, or nil when none came within the timeout.
    func receive(timeoutMilliseconds: Int32) -> String? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n > 0 ? String(decoding: buffer[..<n], as: UTF8.self) : nil
    }
}
