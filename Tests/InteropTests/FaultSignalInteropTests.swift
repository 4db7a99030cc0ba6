import Foundation
import History
import Platform
import Readings
import Testing

extension Interop {
    /// SIGTERM mid-export, through the real binary: `vigil export -o FILE` stopped
    /// half-way leaves no FILE and no temporary file and exits 143 (128 + SIGTERM: interrupted);
    /// `vigil run` stopped while it streams a serial EXPORT exits 0 after STOPPING=1, and the
    /// history it was reading from is intact (quick and full check ok, every row present).
    @Suite struct FaultSignalInteropTests {
        /// The export's temporary file (`.NAME.<random>.tmp` beside the target), if any.
        static func temporaryFiles(in directory: URL, for name: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
                .filter { $0.hasPrefix(".\(name).") && $0.hasSuffix(".tmp") }
        }

        static func size(_ path: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        }

        @Test func exportInterruptedBySIGTERMLeavesNoFileAndExits143() throws {
            // 300,000 readings: about 18 MB of CSV, seconds of work for a debug build, so the
            // signal lands while the temporary file is being written. Added in batches: the
            // store keeps at most 50,000 uncommitted rows.
            let fixture = try HistoryFixture(glucose: 1, heartRate: 0)
            let store = try HistoryStore.open(path: fixture.database, bootID: "fixture")
            for batch in stride(from: 1, to: 300_000, by: 50_000) {
                let rows = (batch..<min(batch + 50_000, 300_000)).map(HistoryFixture.glucose(_:))
                store.append(rows)
                guard case .committed(rows.count, 0) = store.commit() else { throw HarnessError.malformedOutput("a batch did not commit") }
            }
            try store.checkpoint()
            let output = fixture.path("out.csv")
            let export = try BackgroundVigil(["export", "--database", fixture.database, "--format", "csv", "-o", output])
            let midWay = export.wait(upTo: .seconds(30)) {
                Self.temporaryFiles(in: fixture.directory, for: "out.csv").contains { Self.size(fixture.path($0)) >= 1 << 20 }
            }
            try #require(midWay && export.process.isRunning,
                         "the export finished (or never started) before it could be interrupted\n\(export.summary)")
            export.send(SIGTERM)
            let exit = export.waitForExit()
            #expect(!exit.timedOut && !exit.bySignal, "killed rather than stopped: \(exit)\n\(export.summary)")
            #expect(exit.status == 128 + SIGTERM, "\(exit)\n\(export.summary)")
            #expect(export.stderrText.contains("vigil export: interrupted by SIGTERM (\(output) was left unchanged)"), "\(export.summary)")
            #expect(!FileManager.default.fileExists(atPath: output), "a partial export appeared at its path")
            #expect(Self.temporaryFiles(in: fixture.directory, for: "out.csv").isEmpty, "the temporary file was left behind")

            // The same export, left alone, completes: the interruption is what stopped it.
            let again = try VigilProcess().run(["export", "--database", fixture.database, "--format", "csv", "-o", output],
                                               timeout: .seconds(120))
            #expect(again.exitCode == 0, "\(again.summary)")
            #expect(Self.size(output) > 1 << 20)
        }

        @Test func runStreamingASerialExportStopsCleanlyOnSIGTERMWithTheHistoryIntact() throws {
            let fixture = try HistoryFixture(glucose: 20_000, heartRate: 5_000)
            let pair = try PseudoTerminal.openPair()
            let config = try fixture.writeSerialExportConfig(serialPort: pair.secondaryPath)
            let notifications = try NotificationReceiver()
            let run = try BackgroundVigil(["run", "--config", config, "--hci", "tcp:127.0.0.1:1", "--log-level", "info", "--seconds", "120"],
                                          environment: notifications.vigilEnvironment)
            #expect(run.waitForLog("serial export: listening on \(pair.secondaryPath)"), "\(run.summary)")

            try pair.primary.write(Array("EXPORT csv\r".utf8))
            var received: [UInt8] = []
            let end = ContinuousClock.now + .seconds(20)
            while received.count < 16_384 || !String(decoding: received, as: UTF8.self).contains("OK export csv\r\n"),
                  ContinuousClock.now < end {
                if let bytes = try SerialExportInteropTests.readSome(pair.primary) { received += bytes } else { Thread.sleep(forTimeInterval: 0.01) }
            }
            // The port echoes what is typed (a person at a terminal), then answers.
            let text = String(decoding: received, as: UTF8.self)
            try #require(text.contains("OK export csv\r\n"), "\(text.prefix(200))\n\(run.summary)")
            #expect(!text.contains("\r\n.\r\n"), "the whole export was already sent: SIGTERM would not land mid-export")

            run.send(SIGTERM)
            let exit = run.waitForExit()
            #expect(!exit.timedOut && !exit.bySignal && exit.status == 0, "\(exit)\n\(run.summary)")
            #expect(run.stderrText.contains("received SIGTERM; stopping"), "\(run.summary)")
            var datagrams: [String] = []
            while let datagram = notifications.receive(timeoutMilliseconds: 200) { datagrams.append(datagram) }
            #expect(datagrams.last == "STOPPING=1", "\(datagrams)")

            let store = try HistoryStore.open(path: fixture.database, bootID: "fault-check")
            guard case .opened = store.outcome else {
                Issue.record("the history was not found whole: \(store.outcome)")
                return
            }
            #expect(try store.check(full: true) == "ok")
            let counts = try store.counts()
            #expect(counts.readings[.glucose] == fixture.glucoseCount)
            #expect(counts.readings[.heartRate] == fixture.heartRateCount)
            // Every row as the fixture wrote it: first, last and the count by time order.
            let glucose = Array(store.readings(HistoryQuery(kind: .glucose)))
            #expect(glucose.first == HistoryFixture.glucose(0))
            #expect(glucose.last == HistoryFixture.glucose(fixture.glucoseCount - 1))
        }
    }
}

/// An AF_UNIX datagram socket bound at a path, standing in for systemd's NOTIFY_SOCKET.
final class NotificationReceiver {
    let fd: Int32
    /// Set by the convenience init, which removes the socket file again at deinit.
    private var ownedPath: String?

    /// At a fresh path in /tmp (sun_path is short), removed again with the receiver.
    convenience init() throws {
        let path = "/tmp/vigil-\(UUID().uuidString.prefix(8)).notify"
        try self.init(path: path)
        ownedPath = path
    }

    /// This process's environment with NOTIFY_SOCKET pointing here and no watchdog: what a
    /// Type=notify unit gives vigil, without the watchdog's pings in the way.
    var vigilEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = ownedPath
        environment.removeValue(forKey: "WATCHDOG_USEC")
        return environment
    }

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError.launchFailed("socket(AF_UNIX) failed: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() where i < raw.count - 1 { raw[i] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw HarnessError.launchFailed("bind(\(path)) failed: errno \(errno)")
        }
    }

    deinit {
        close(fd)
        if let ownedPath { try? FileManager.default.removeItem(atPath: ownedPath) }
    }

    /// One datagram, or nil when none came within the timeout.
    func receive(timeoutMilliseconds: Int32) -> String? {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, timeoutMilliseconds) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n > 0 ? String(decoding: buffer[..<n], as: UTF8.self) : nil
    }
}
