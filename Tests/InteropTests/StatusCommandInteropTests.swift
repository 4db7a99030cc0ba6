#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

extension Interop {
    /// `vigil status` through the real binaries: a daemon (`vigil demo` on its simulated radio,
    /// or `vigil run` against the Bumble heart-rate rig) answering on a unix socket in a temp
    /// directory, and `vigil status --socket` asking it. Values are checked against the
    /// daemon's own `--events-json` stream (and the rig's log), never against constants.
    @Suite struct StatusCommandInteropTests {
        /// `vigil demo --status-socket`: the text and the JSON answer show the three demo
        /// devices, and the strap's last heart rate is one the daemon reported.
        @Test func demoAnswersInTextAndJSON() throws {
            let directory = try TemporaryDirectory()
            let socket = directory.path + "/status.sock"
            let daemon = try BackgroundVigil(["demo", "--events-json", "--status-socket", socket, "--seconds", "40"])
            defer { daemon.stop() }

            let status = try Self.waitForHeartRate(socket: socket, daemon: daemon)
            let devices = try #require(status.objects("devices"))
            #expect(devices.compactMap { $0.string("id") } == ["g6", "chest-strap", "fridge"])
            #expect(devices.compactMap { $0.string("kind") } == ["dexcom", "heart-rate", "bthome"])
            #expect(devices[2].string("state") == "listening")
            #expect(status.string("version")?.isEmpty == false)
            #expect(status.object("controller")?.string("state") == "up")
            let strap = devices[1]
            #expect(strap.string("state") == "connected")
            let rate = try #require(strap.objects("readings")?.first { $0.string("kind") == "heart-rate" })
            #expect(rate.string("unit") == "bpm")
            #expect((0...5).contains(rate.int("ageSeconds") ?? -1), "\(rate)")
            let reported = Set(daemon.events.filter { $0.string("device") == "chest-strap" && $0.string("kind") == "heart-rate" }
                .compactMap { $0.int("bpm") })
            #expect(rate.int("value").map(reported.contains) == true, "status says \(rate), the daemon reported \(reported.sorted())")
            #expect(strap.string("address") == daemon.events.first { $0.string("device") == "chest-strap" && $0.string("event") == "connected" }?.string("address"))

            let text = try VigilProcess().run(["status", "--socket", socket], timeout: .seconds(10))
            #expect(text.exitCode == 0, "\(text.summary)")
            let lines = text.stdoutText.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("Vigil ") == true, "\(text.stdoutText)")
            #expect(lines.contains { $0.hasPrefix("  chest-strap (heart-rate): connected for ") }, "\(text.stdoutText)")
            #expect(lines.contains { $0.range(of: #"^    heart-rate \d+ bpm"#, options: .regularExpression) != nil }, "\(text.stdoutText)")
            #expect(lines.contains("  fridge (bthome): listening for advertisements, C0:FF:EE:00:00:04"), "\(text.stdoutText)")

            // At exit the socket file goes with the daemon.
            #expect(daemon.stop() == 0)
            #expect(!FileManager.default.fileExists(atPath: socket))
        }

        /// Nothing there, and a stale file nobody accepts on: the same clear line, exit 69.
        @Test func nothingListeningIsExit69AndOneLine() throws {
            let directory = try TemporaryDirectory()
            let missing = directory.path + "/status.sock"
            let result = try VigilProcess().run(["status", "--socket", missing], timeout: .seconds(10))
            #expect(result.exitCode == 69, "\(result.summary)")
            #expect(result.stdoutText.isEmpty)
            #expect(result.stderrText == "vigil is not running: nothing listens on \(missing)\n")

            let stale = directory.path + "/stale.sock"
            let leftOver = try UnixTestSocket.bindWithoutListening(stale)
            defer { close(leftOver) }
            let json = try VigilProcess().run(["status", "--socket", stale, "--json"], timeout: .seconds(10))
            #expect(json.exitCode == 69, "\(json.summary)")
            #expect(json.stderrText == "vigil is not running: nothing listens on \(stale)\n")
        }

        /// A daemon already answering keeps its socket: a second one logs an error, runs on
        /// without a status socket, and the first still answers.
        @Test func aSecondDaemonLeavesTheFirstOnesSocketAlone() throws {
            let directory = try TemporaryDirectory()
            let socket = directory.path + "/status.sock"
            let first = try BackgroundVigil(["demo", "--events-json", "--status-socket", socket, "--seconds", "30"])
            defer { first.stop() }
            _ = try Self.waitForHeartRate(socket: socket, daemon: first)
            let second = try VigilProcess().run(["demo", "--events-json", "--status-socket", socket, "--seconds", "2"], timeout: .seconds(20))
            #expect(second.exitCode == 0, "\(second.summary)")
            #expect(second.stderrText.contains("answers on \(socket)"), "\(second.summary)")
            #expect(second.stderrText.contains("running without the status socket"), "\(second.summary)")
            let after = try VigilProcess().run(["status", "--socket", socket, "--json"], timeout: .seconds(10))
            #expect(after.exitCode == 0, "\(after.summary)")
        }

        /// A user outside the socket's group (the socket is 0660, root's here) is told how to
        /// get in, exit 77 (EX_NOPERM), rather than "not running". Run as root, the test asks
        /// as `nobody` through setpriv, with a copy of the binary that `nobody` can execute.
        @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv to ask as another user"))
        func aUserWithoutAccessIsToldHowToGetItExit77() throws {
            let directory = try TemporaryDirectory()
            #expect(chmod(directory.path, 0o755) == 0)
            let socket = directory.path + "/status.sock"
            let daemon = try BackgroundVigil(["demo", "--events-json", "--status-socket", socket, "--seconds", "30"])
            defer { daemon.stop() }
            _ = try Self.waitForHeartRate(socket: socket, daemon: daemon)
            let binary = directory.path + "/vigil"
            try FileManager.default.copyItem(atPath: try InteropEnvironment.vigilBinary().path, toPath: binary)
            #expect(chmod(binary, 0o755) == 0)

            let asNobody = try ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
                                                arguments: ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "status", "--socket", socket],
                                                timeout: .seconds(10))
            #expect(asNobody.exitCode == 77, "\(asNobody.summary)")
            #expect(asNobody.stdoutText.isEmpty)
            #expect(asNobody.stderrText.hasPrefix("vigil status: permission denied on \(socket): add yourself to the vigil group"), "\(asNobody.summary)")
            // The daemon is there all along: root is answered.
            #expect(try VigilProcess().run(["status", "--socket", socket], timeout: .seconds(10)).exitCode == 0)
        }

        /// What is not a request gets one ERR line and the end of the connection; a client
        /// beyond the limit of 4 at once is told it is busy, and answered once one leaves.
        @Test func refusalsAreOneLineAndTheClientLimitHolds() throws {
            let directory = try TemporaryDirectory()
            let socket = directory.path + "/status.sock"
            let daemon = try BackgroundVigil(["demo", "--events-json", "--status-socket", socket, "--seconds", "30", "--log-level", "info"])
            defer { daemon.stop() }
            _ = try Self.waitForHeartRate(socket: socket, daemon: daemon)

            for (request, reply) in [("HELP\n", "ERR unknown request \"HELP\": send STATUS or STATUS JSON\n"),
                                     (String(repeating: "S", count: 300), "ERR request longer than 256 bytes: send STATUS or STATUS JSON\n"),
                                     ("\u{1B}[A\n", "ERR request is not a line of text: send STATUS or STATUS JSON\n")] {
                let client = try UnixTestSocket.connect(socket)
                defer { close(client) }
                #expect(write(client, request, request.utf8.count) == request.utf8.count)
                #expect(UnixTestSocket.readToEnd(client, within: 5) == reply)
            }

            let silent = try (0..<4).map { _ in try UnixTestSocket.connect(socket) }
            // The daemon accepts in the order the connections came: the four first, then the
            // fifth, which is one too many.
            let busy = try VigilProcess().run(["status", "--socket", socket], timeout: .seconds(10))
            #expect(busy.exitCode == 1, "\(busy.summary)")
            #expect(busy.stderrText == "vigil status: the daemon said: busy: too many status clients at once, try again\n", "\(busy.summary)")
            // One leaves without a request; once the daemon has said so (its log: the request it
            // never got refused as empty), there is room again.
            let refusals = { daemon.stderrText.components(separatedBy: "status: refused a request").count }
            let before = refusals()
            close(silent[0])
            #expect(daemon.wait(upTo: .seconds(5)) { refusals() > before }, "the daemon never saw the client leave\n\(daemon.summary)")
            let answered = try VigilProcess().run(["status", "--socket", socket], timeout: .seconds(10))
            #expect(answered.exitCode == 0, "\(answered.summary)")
            for fd in silent.dropFirst() { close(fd) }
        }

        /// `vigil run` against the heart-rate rig: a client that connects and never writes is
        /// dropped after about 2 s, `vigil status` is answered meanwhile, and the rig's
        /// notifications keep being reported one for one while the silent client hangs on.
        @Test(bumbleRequired) func aSilentClientDoesNotStopReadings() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "5"])
            defer { rig.stop() }
            let directory = try TemporaryDirectory()
            let socket = directory.path + "/status.sock"
            let info = try rig.info()
            let config = directory.path + "/vigil.conf"
            try "[face]\nbackend = \"none\"\n[[device]]\ntype = \"heart-rate\"\nname = \"\(try #require(info.string("name")))\"\n"
                .write(toFile: config, atomically: true, encoding: .utf8)
            let rigStart = rig.lineCount
            let daemon = try BackgroundVigil(["run"] + VigilProcess.hci(rig) + ["--config", config, "--state-dir", directory.path + "/state",
                                                                                "--events-json", "--status-socket", socket, "--seconds", "14"])
            defer { daemon.stop() }
            _ = try Self.waitForHeartRate(socket: socket, daemon: daemon, device: "heart-rate")

            let silent = try UnixTestSocket.connect(socket)
            defer { close(silent) }
            let readingsBefore = daemon.events.filter { $0.string("event") == "reading" }.count
            let connectedAt = Date()
            // Answered while the silent client hangs on: the loop is not waiting for it.
            let answered = try VigilProcess().run(["status", "--socket", socket, "--json"], timeout: .seconds(10))
            #expect(answered.exitCode == 0, "\(answered.summary)")
            let closedAfter = UnixTestSocket.secondsUntilClosed(silent, since: connectedAt, within: 6)
            let dropped = try #require(closedAfter, "the silent client was never dropped")
            #expect(dropped >= 1.5 && dropped <= 4, "dropped after \(dropped) s")
            let readingsWhileSilent = daemon.events.filter { $0.string("event") == "reading" }.count - readingsBefore
            // 5 Hz for about 2 s: readings kept coming while the client said nothing.
            #expect(readingsWhileSilent >= 5, "\(readingsWhileSilent) readings in the \(Date().timeIntervalSince(connectedAt)) s the silent client was connected")

            // Seen: stopped now (SIGTERM, a clean exit), not at its --seconds.
            #expect(daemon.stop() == 0, "\(daemon.summary)")
            _ = try rig.waitFor(since: rigStart, timeout: .seconds(3)) { $0.string("event") == "disconnected" }
            let sent = try rig.records(since: rigStart).filter { $0.string("sent") == "hrm" }.compactMap { $0.int("bpm") }
            let reported = daemon.events.filter { $0.string("event") == "reading" && $0.string("kind") == "heart-rate" }.compactMap { $0.int("bpm") }
            // One for one, in order; the last may still have been in flight at --seconds.
            #expect((0...1).contains(sent.count - reported.count), "rig sent \(sent.count), vigil reported \(reported.count)")
            #expect(Array(sent.prefix(reported.count)) == reported)
        }

        /// Out of file descriptors (the daemon's limit lowered under it with prlimit, to the
        /// lowest number it has free): a client waiting to be accepted cannot be, and the
        /// listener rests a second between tries instead of spinning on it. The daemon's CPU
        /// stays low, the failure is said once, and readings go on; with the limit restored
        /// the waiting client is answered and the recovery is said.
        @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs root and prlimit"))
        func runningOutOfDescriptorsRestsTheListenerInsteadOfSpinning() throws {
            let directory = try TemporaryDirectory()
            let socket = directory.path + "/status.sock"
            let daemon = try BackgroundVigil(["demo", "--events-json", "--status-socket", socket, "--seconds", "40", "--log-level", "notice"])
            defer { daemon.stop() }
            _ = try Self.waitForHeartRate(socket: socket, daemon: daemon)
            let pid = daemon.process.processIdentifier
            let open = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { Int($0) })
            let lowestFree = (0...).first { !open.contains($0) }!
            try Self.prlimit(pid, openFiles: lowestFree)

            let waiting = try UnixTestSocket.connect(socket)
            defer { close(waiting) }
            #expect(write(waiting, "STATUS\n", 7) == 7)
            let readingsBefore = daemon.events.filter { $0.string("event") == "reading" }.count
            let cpuBefore = try Self.cpuSeconds(pid)
            let start = Date()
            Thread.sleep(forTimeInterval: 3)
            let share = (try Self.cpuSeconds(pid) - cpuBefore) / Date().timeIntervalSince(start)
            // Spinning on the listener was a whole core; the demo's own work is a few percent.
            #expect(share < 0.25, "the daemon used \(Int(share * 100)) % of a core while it could not accept")
            let said = daemon.stderrText.components(separatedBy: "status: accept(unix:").count - 1
            #expect(said == 1, "the failure was said \(said) times\n\(daemon.summary)")
            #expect(daemon.stderrText.contains("EMFILE") || daemon.stderrText.contains("Too many open files"), "\(daemon.summary)")
            #expect(daemon.events.filter { $0.string("event") == "reading" }.count > readingsBefore, "readings stopped\n\(daemon.summary)")

            try Self.prlimit(pid, openFiles: 1024)
            let answer = UnixTestSocket.readToEnd(waiting, within: 5) ?? ""
            #expect(answer.hasPrefix("Vigil "), "the waiting client was not answered: \(answer)")
            #expect(daemon.waitForLog("status: accepting again", upTo: .seconds(3)), "\(daemon.summary)")
        }

        /// Sets the open-files limit (soft and hard) of a running process.
        static func prlimit(_ pid: Int32, openFiles: Int) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            process.arguments = ["--pid", "\(pid)", "--nofile=\(openFiles):\(max(openFiles, 1024))"]
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "prlimit --nofile=\(openFiles) failed")
        }

        /// User and system CPU time of a process so far (/proc/PID/stat fields 14 and 15).
        static func cpuSeconds(_ pid: Int32) throws -> Double {
            let text = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
            // After the command name in parentheses, which may hold spaces: state is field 3.
            let fields = text[text.index(after: try #require(text.lastIndex(of: ")")))...].split(separator: " ")
            let ticks = try #require(Double(fields[11])) + (try #require(Double(fields[12])))
            return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
        }

        /// Asks `vigil status --json` until `device` shows a heart-rate reading (the daemon is
        /// up and the strap notified), at most 25 s; returns the last answer.
        static func waitForHeartRate(socket: String, daemon: BackgroundVigil, device: String = "chest-strap") throws -> JSONObject {
            let deadline = Date().addingTimeInterval(25)
            var last = ""
            while Date() < deadline {
                let result = try VigilProcess().run(["status", "--socket", socket, "--json"], timeout: .seconds(10))
                last = result.summary
                if result.exitCode == 0, let status = try? result.jsonDocument(),
                   let entry = status.objects("devices")?.first(where: { $0.string("id") == device }),
                   entry.objects("readings")?.contains(where: { $0.string("kind") == "heart-rate" }) == true {
                    return status
                }
                Thread.sleep(forTimeInterval: 0.3)
            }
            throw HarnessError.malformedOutput("no heart-rate reading in vigil status within 25 s; last: \(last)\n\(daemon.summary)")
        }
    }
}

/// A temporary directory removed when the test ends. Unix socket paths must stay under 108
/// bytes, so it lives directly in /tmp with a short name.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = "/tmp/vst-" + String(UUID().uuidString.prefix(8))
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Raw unix sockets on the test's side: a silent client, and a stale socket file.
enum UnixTestSocket {
    static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        return address
    }

    /// A client that connects and never writes.
    static func connect(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = address(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw HarnessError.malformedOutput("connect(\(path)) failed: errno \(errno)")
        }
        return fd
    }

    /// A socket file as a killed daemon leaves it: bound, nobody listening.
    static func bindWithoutListening(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = address(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw HarnessError.malformedOutput("bind(\(path)) failed: errno \(errno)")
        }
        return fd
    }

    /// Everything the other end sends until it closes, as text (nil if it stays open).
    static func readToEnd(_ fd: Int32, within seconds: Double) -> String? {
        let start = Date()
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date().timeIntervalSince(start) < seconds {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else { continue }
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { return String(decoding: received, as: UTF8.self) }
            received += buffer[0..<n]
        }
        return nil
    }

    /// Seconds from `start` until the other end closes `fd` (a read returns 0), or nil if it
    /// stays open `seconds` after `start`.
    static func secondsUntilClosed(_ fd: Int32, since start: Date, within seconds: Double) -> Double? {
        var buffer = [UInt8](repeating: 0, count: 256)
        while Date().timeIntervalSince(start) < seconds {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else { continue }
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { return Date().timeIntervalSince(start) }
        }
        return nil
    }
}
