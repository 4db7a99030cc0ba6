import Clocks
import Foundation
import History
import Platform
import Testing

extension Interop {
    /// The serial export end to end through the built binary: `vigil serial-export` (the
    /// appliance's `SerialExportServer`) on one PTY pair, `vigil export --serial` (the laptop's
    /// client) on another, and the test copying bytes between the two primaries as a USB cable
    /// would. Also a person typing at the server, a disconnect mid-export, and a silent port.
    @Suite struct SerialExportInteropTests {
        /// A `vigil` running in the background, its stderr in a file the test can watch.
        final class Background {
            let process = Process()
            let stderrPath: String

            init(_ arguments: [String], in directory: URL) throws {
                stderrPath = directory.appendingPathComponent("stderr-\(UUID().uuidString).log").path
                _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
                process.executableURL = try InteropEnvironment.vigilBinary()
                process.arguments = arguments
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
                try process.run()
            }

            deinit { if process.isRunning { process.terminate(); process.waitUntilExit() } }

            var stderrText: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

            /// Waits until stderr contains `text`; false at the timeout or if the process ended.
            func waitForLog(_ text: String, within limit: Duration = .seconds(10)) -> Bool {
                wait(upTo: limit) { stderrText.contains(text) }
            }

            /// Polls (every 20 ms) until `condition` holds; false at the limit, or when the
            /// process ended and it still does not hold.
            func wait(upTo limit: Duration, until condition: () -> Bool) -> Bool {
                let end = ContinuousClock.now + limit
                while ContinuousClock.now < end {
                    if condition() { return true }
                    if !process.isRunning { return condition() }
                    Thread.sleep(forTimeInterval: 0.02)
                }
                return false
            }

            /// SIGTERM, then the exit status (the server stops cleanly on it: 0).
            func stop() -> Int32 {
                if process.isRunning { process.terminate() }
                process.waitUntilExit()
                return process.terminationStatus
            }
        }

        static func startServer(_ fixture: HistoryFixture, on pair: PseudoTerminal, echo: Bool = true) throws -> Background {
            let server = try Background(["serial-export", pair.secondaryPath, "--database", fixture.database, "--seconds", "60"]
                                        + (echo ? [] : ["--no-echo"]), in: fixture.directory)
            #expect(server.waitForLog("listening on \(pair.secondaryPath)"), "\(server.stderrText)")
            return server
        }

        /// What one read returns: nil when nothing is waiting, [] at a hang-up.
        static func readSome(_ transport: any ByteTransport) throws -> [UInt8]? {
            var buffer: [UInt8] = []
            do {
                _ = try transport.read(into: &buffer, maxCount: 65_536)
            } catch {
                if error.isWouldBlock { return nil }
                throw error
            }
            return buffer
        }

        /// Reads from `transport` until `ending` is among what arrived (or `limit` passes); everything read.
        static func read(_ transport: any ByteTransport, until ending: String, within limit: Duration = .seconds(10)) throws -> String {
            var received: [UInt8] = []
            let end = SystemClock.monotonicNow() + limit
            var loop = PollLoop()
            loop.register(transport.fileDescriptor)
            while !String(decoding: received, as: UTF8.self).contains(ending), SystemClock.monotonicNow() < end {
                _ = try loop.wait(until: end)
                guard let bytes = try readSome(transport) else { continue }
                if bytes.isEmpty { break }
                received += bytes
            }
            return String(decoding: received, as: UTF8.self)
        }

        @Test func aPersonAtATerminalGetsHelpStatusAndErrors() throws {
            let fixture = try HistoryFixture()
            let pair = try PseudoTerminal.openPair()
            let server = try Self.startServer(fixture, on: pair)
            try pair.primary.write(Array("STATUS\r".utf8))
            let status = try Self.read(pair.primary, until: "\r\n.\r\n")
            // The typed command is echoed, then the framed answer.
            #expect(status.hasPrefix("STATUS\r\nOK status\r\nreadings 2800\r\n"), "\(status)")
            #expect(status.contains("readings glucose 2500\r\n"))
            #expect(status.contains("readings heart-rate 300\r\n"))
            try pair.primary.write(Array("FETCH everything\r\n".utf8))
            let error = try Self.read(pair.primary, until: "(try HELP)\r\n")
            #expect(error == "FETCH everything\r\nERR unknown command 'FETCH' (try HELP)\r\n")
            try pair.primary.write(Array("export csv 2026-11-01T00:00:00Z 2026-11-01T00:10:00Z\n".utf8))
            let export = try Self.read(pair.primary, until: "\r\n.\r\n")
            #expect(export.hasSuffix("""
                OK export csv\r
                device,kind,value,unit,trend,time,sensor_time,sensor_run,origin,context\r
                dexcom-811234,glucose,80,mg/dL,Flat,2026-11-01T00:00:00+00:00,0,,live,\r
                polar-h10,heart-rate,60,bpm,,2026-11-01T00:00:30+00:00,,,live,\r
                polar-h10,heart-rate,61,bpm,,2026-11-01T00:01:30+00:00,,,live,\r
                polar-h10,heart-rate,62,bpm,,2026-11-01T00:02:30+00:00,,,live,\r
                polar-h10,heart-rate,63,bpm,,2026-11-01T00:03:30+00:00,,,live,\r
                polar-h10,heart-rate,64,bpm,,2026-11-01T00:04:30+00:00,,,live,\r
                dexcom-811234,glucose,81,mg/dL,Flat,2026-11-01T00:05:00+00:00,300,,live,\r
                polar-h10,heart-rate,65,bpm,,2026-11-01T00:05:30+00:00,,,live,\r
                polar-h10,heart-rate,66,bpm,,2026-11-01T00:06:30+00:00,,,live,\r
                polar-h10,heart-rate,67,bpm,,2026-11-01T00:07:30+00:00,,,live,\r
                polar-h10,heart-rate,68,bpm,,2026-11-01T00:08:30+00:00,,,live,\r
                polar-h10,heart-rate,69,bpm,,2026-11-01T00:09:30+00:00,,,live,\r
                .\r

                """), "\(export)")
            #expect(server.stop() == 0, "\(server.stderrText)")
        }

        @Test func theClientSavesWhatTheServerSendsByteForByte() throws {
            let fixture = try HistoryFixture()
            let appliance = try PseudoTerminal.openPair()
            let laptop = try PseudoTerminal.openPair()
            let server = try Self.startServer(fixture, on: appliance)
            let output = fixture.path("over-serial.csv")
            let client = try Background(["export", "--serial", laptop.secondaryPath, "--format", "csv", "-o", output, "--timeout", "5"],
                                        in: fixture.directory)
            // The cable: bytes from each primary to the other until the client is done.
            let end = SystemClock.monotonicNow() + .seconds(30)
            while client.process.isRunning, SystemClock.monotonicNow() < end {
                var loop = PollLoop()
                loop.register(appliance.primary.fileDescriptor)
                loop.register(laptop.primary.fileDescriptor)
                for event in try loop.wait(until: SystemClock.monotonicNow() + .milliseconds(50)) where event.isReadable {
                    let (from, to) = event.fileDescriptor == appliance.primary.fileDescriptor
                        ? (appliance.primary, laptop.primary) : (laptop.primary, appliance.primary)
                    if let bytes = try Self.readSome(from), !bytes.isEmpty { try to.write(bytes) }
                }
            }
            client.process.waitUntilExit()
            #expect(client.process.terminationStatus == 0, "\(client.stderrText)")
            let local = try VigilProcess().run(["export", "--database", fixture.database, "--format", "csv"])
            let saved = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect(saved == local.stdout)
            #expect(saved.count > 100_000)
            #expect(server.stop() == 0, "\(server.stderrText)")
        }

        @Test func aDisconnectMidExportIsHarmless() throws {
            let fixture = try HistoryFixture(glucose: 20_000, heartRate: 0)
            let pair = try PseudoTerminal.openPair()
            let server = try Self.startServer(fixture, on: pair, echo: false)
            try pair.primary.write(Array("EXPORT csv\r\n".utf8))
            let partial = try Self.read(pair.primary, until: "dexcom-811234,glucose,80,mg/dL,Flat,2026-11-01T00:00:00+00:00,0,,live,\r\n")
            #expect(partial.hasPrefix("OK export csv\r\n"))
            // The cable is pulled: both ends of this PTY go away mid-answer.
            pair.primary.close()
            pair.secondary.close()
            #expect(server.waitForLog("mid-answer: the answer was dropped"), "\(server.stderrText)")
            // The server stays up, retrying the port (it says so at its first failed reopen), and
            // stops cleanly; the history is intact.
            #expect(server.waitForLog("retrying every"), "\(server.stderrText)")
            #expect(server.process.isRunning)
            #expect(server.stop() == 0, "\(server.stderrText)")
            let store = try HistoryStore.open(path: fixture.database, bootID: "check")
            #expect(try store.counts().totalReadings == 20_000)
            #expect(try store.check(full: true) == "ok")
        }

        @Test func aSilentPortTimesOutClearly() throws {
            let fixture = try HistoryFixture(glucose: 1, heartRate: 0)
            let pair = try PseudoTerminal.openPair()
            let output = fixture.path("never.csv")
            let result = try VigilProcess().run(["export", "--serial", pair.secondaryPath, "-o", output, "--timeout", "1"])
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("no answer from \(pair.secondaryPath) within 1.0 seconds"), "\(result.stderrText)")
            #expect(!FileManager.default.fileExists(atPath: output))
            #expect(result.duration < .seconds(5))
            // What the client sent: one EXPORT line with an open window.
            #expect(try Self.read(pair.primary, until: "\r\n", within: .seconds(1)) == "EXPORT csv - -\r\n")
        }
    }
}
