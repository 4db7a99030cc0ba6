import Foundation
import Testing

extension Interop {
    /// The short version of the soak: `vigil-bench soak --hours 2 --json`, the built benchmark
    /// run as a child. The scripted day puts everything that must alarm in its first two hours
    /// (SoakSchedule: the Dexcom out of range 00:07–00:47, the strap 00:20–00:50, the fridge at
    /// 9.5 °C 00:55–01:40, glucose below 55 mg/dL 01:15–01:40); only the afternoon high needs
    /// the full day, and the report marks it as not required here.
    ///
    /// Opt-in (`VIGIL_SOAK=1 scripts/test`): about 75 s of CPU in a debug build. The simulated
    /// devices and the alarm logic it drives have unit tests that always run; the two hours
    /// together run when asked (before a release, after a change to the run loop).
    @Suite(.enabled(if: ProcessInfo.processInfo.environment["VIGIL_SOAK"] == "1", "the soak is opt-in: VIGIL_SOAK=1"))
    struct SoakInteropTests {
        /// `vigil-bench` next to the test bundle (same configuration), else .build/debug.
        static func benchBinary() throws -> URL {
            var candidates: [URL] = []
            if let testExecutable = Bundle.main.executableURL {
                candidates.append(testExecutable.deletingLastPathComponent().appendingPathComponent("vigil-bench"))
            }
            candidates.append(InteropEnvironment.repositoryRoot.appendingPathComponent(".build/debug/vigil-bench"))
            guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
                throw HarnessError.binaryMissing("vigil-bench not found (looked at \(candidates.map(\.path))): run swift build")
            }
            return found
        }

        /// Run once for all the tests below (two simulated hours take about a minute of CPU in a
        /// debug build); the error as text, as a static must be Sendable.
        static let outcome: (result: ChildProcessResult?, error: String?) = {
            do {
                let binary = try benchBinary()
                return (try ChildProcess.run(executable: binary, arguments: ["soak", "--hours", "2", "--json"], timeout: .seconds(600)), nil)
            } catch {
                return (nil, "\(error)")
            }
        }()

        static func report() throws -> JSONObject {
            guard let result = outcome.result else { throw HarnessError.binaryMissing(outcome.error ?? "vigil-bench did not run") }
            #expect(result.exitCode == 0, "\(result.summary)")
            return try result.jsonDocument()
        }

        static func minutes(_ m: Double) -> Double { m * 60 }

        @Test func passesWithTwoHourlySamplesAndFlatFileDescriptors() throws {
            let json = try Self.report()
            #expect(json.string("verdict") == "PASS", "unexpected: \(json.strings("unexpectedAlarms") ?? []); problems: \(json.strings("problems") ?? [])")
            #expect(json.bool("passed") == true)
            #expect(json.int("hours") == 2)
            #expect(json.int("hoursRun") == 2)
            #expect(json.object("memory")?.bool("passed") == true)
            #expect(json.object("memory")?.int("fromHour") == 1)
            #expect(json.object("memory")?.int("toHour") == 2)
            let fds = try #require(json.object("fileDescriptors"))
            #expect(fds.bool("passed") == true)
            let counts = try #require(fds.doubles("counts"))
            #expect(counts.count == 2 && counts[0] == counts[1] && counts[0] > 0)
            let hourly = try #require(json.objects("hourly"))
            #expect(hourly.map { $0.int("hour") } == [1, 2])
            for sample in hourly {
                #expect((sample.int("residentBytes") ?? 0) > 1_000_000)
                #expect((sample.double("cpuSeconds") ?? -1) >= 0)
            }
            #expect((hourly[0].int("readingsStored") ?? 0) > 0)
            #expect((hourly[1].int("readingsStored") ?? 0) > (hourly[0].int("readingsStored") ?? 0))
            #expect((json.double("cpuSecondsPerHour") ?? -1) > 0)
        }

        @Test func everyReadingSentIsStored() throws {
            let json = try Self.report()
            #expect(json.bool("readingsPassed") == true)
            let readings = try #require(json.objects("readings"))
            func check(_ device: String, _ kind: String) -> JSONObject? {
                readings.first { $0.string("device") == device && $0.string("kind") == kind }
            }
            // Dexcom: a reading every 5 minutes from the session start (−2 h, backfilled) to
            // 6 minutes before the end: −7200 s … 6840 s, 47 of them, the outage's included.
            let glucose = try #require(check("dexcom", "glucose"))
            #expect(glucose.int("expected") == 47)
            #expect(glucose.bool("passed") == true, "\(glucose.string("note") ?? "")")
            #expect((glucose.int("stored") ?? 0) >= 47 && (glucose.int("stored") ?? 0) <= 48)
            // The strap at 1 Hz for 2 hours, minus its 30 minutes out of range and reconnecting.
            let heartRate = try #require(check("strap", "heart-rate"))
            #expect(heartRate.bool("passed") == true, "\(heartRate.string("note") ?? "")")
            #expect(heartRate.int("stored") == heartRate.int("expected"))
            let beats = heartRate.int("expected") ?? 0
            #expect(beats >= 7200 - 1800 - 120 && beats <= 7200 - 1800, "\(beats)")
            // The fridge: a new measurement every 3 s (t = 0 … 7200 s: 2,401), each heard at least once.
            for kind in ["temperature", "humidity"] {
                let fridge = try #require(check("fridge", kind))
                #expect(fridge.bool("passed") == true)
                #expect(fridge.int("stored") == fridge.int("expected"))
                #expect((fridge.int("expected") ?? 0) >= 2300 && (fridge.int("expected") ?? 0) <= 2401)
            }
        }

        @Test func theNightsAlarmsAreRaisedAndClearedAndNoOthers() throws {
            let json = try Self.report()
            #expect(json.bool("alarmsPassed") == true)
            #expect(json.strings("unexpectedAlarms") == [])
            let alarms = try #require(json.objects("alarms"))
            func alarm(_ name: String) throws -> JSONObject { try #require(alarms.first { $0.string("name") == name }, "\(name)") }
            // (name, raised within, cleared within), in simulated seconds since midnight.
            let expected: [(String, ClosedRange<Double>, ClosedRange<Double>)] = [
                ("Dexcom signal loss", Self.minutes(21)...Self.minutes(28), Self.minutes(47)...Self.minutes(53)),
                ("heart-rate signal loss", Self.minutes(39)...Self.minutes(41), Self.minutes(50)...Self.minutes(52)),
                ("fridge too warm", Self.minutes(85)...Self.minutes(86), Self.minutes(100)...Self.minutes(102)),
                ("urgent low", Self.minutes(75)...Self.minutes(81), Self.minutes(110)...Self.minutes(116)),
            ]
            for (name, raised, cleared) in expected {
                let check = try alarm(name)
                #expect(check.bool("passed") == true, "\(name)")
                #expect(check.bool("raiseRequired") == true && check.bool("clearRequired") == true, "\(name)")
                #expect(raised.contains(check.double("raisedAt") ?? -1), "\(name) raised at \(check.double("raisedAt") ?? -1)")
                #expect(cleared.contains(check.double("clearedAt") ?? -1), "\(name) cleared at \(check.double("clearedAt") ?? -1)")
            }
            // The afternoon high is beyond a 2-hour run: listed, not required, not raised.
            let high = try alarm("high")
            #expect(high.bool("raiseRequired") == false)
            #expect(!high.has("raisedAt"))
        }
    }
}
