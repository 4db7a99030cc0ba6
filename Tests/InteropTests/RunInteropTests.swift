import Foundation
import Testing

extension Interop {
    /// `vigil run --hci tcp:... --config FILE --state-dir DIR --events-json --seconds N` against
    /// the heart-rate rig. Every reading vigil reports must equal, one for one and in order, a
    /// notification the rig logged as `{"sent":"hrm",...}`: values come from the peer's log,
    /// never from constants in the test.
    @Suite(bumbleRequired) struct RunInteropTests {
        /// The rig cycles through 9 flag shapes (u8/u16 BPM, four contact encodings, energy,
        /// 0...8 RR intervals); 5 Hz for 8 s yields enough readings to see every shape,
        /// and the runs end as soon as they have.
        static let rateHz = "5"
        static let seconds = 8
        static let minimumReadings = 9
        /// Each run ends once one reading more than the tests need arrived (and, in the first,
        /// a battery level): `seconds` is only the cap.
        static func enoughReadings(_ run: VigilRun) -> Bool {
            VigilRun.readings("heart-rate", atLeast: minimumReadings + 1)(run)
        }

        @Test func runDecodesNotificationsOneForOne() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", Self.rateHz])
            defer { rig.stop() }
            let state = try StateDirectory()
            let run = try VigilRun(rig: rig, state: state, pair: false, seconds: Self.seconds) {
                Self.enoughReadings($0) && !$0.events(named: "battery").isEmpty
            }

            try run.expectCleanExit()
            let connected = try #require(run.events(named: "connected").first, "no connected event\n\(run.diagnostics)")
            #expect(connected.string("address") == run.address)
            try Self.expectReadingsMatch(run)
            try Self.expectBatteryMatches(run)
        }

        @Test func runPairsWithSecureConnectionsWhenEncryptionIsRequired() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", Self.rateHz, "--require-encryption"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let run = try VigilRun(rig: rig, state: state, pair: true, seconds: Self.seconds, until: Self.enoughReadings)

            try run.expectCleanExit()
            let paired = try #require(run.events(named: "paired").first, "no paired event\n\(run.diagnostics)")
            #expect(paired.string("address") == run.address)
            #expect(paired.bool("secureConnections") == true)
            let encrypted = try #require(run.events(named: "encrypted").first, "no encrypted event\n\(run.diagnostics)")
            #expect(encrypted.bool("bonded") == true)
            // Readings can only exist after the link is encrypted: the rig refuses the CCCD before.
            let order = run.events.compactMap { $0.string("event") }
            if let pairedAt = order.firstIndex(of: "paired"), let readingAt = order.firstIndex(of: "reading") {
                #expect(pairedAt < readingAt, "reading before pairing: \(order)")
            }
            let rigPairings = run.rigRecords.filter { $0.string("event") == "paired" }
            #expect(rigPairings.count == 1, "rig log: \(rigPairings)")
            #expect(rigPairings.first?.bool("secureConnections") == true)
            try Self.expectReadingsMatch(run)
        }

        @Test func secondRunReEncryptsFromTheBondStore() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", Self.rateHz, "--require-encryption"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let first = try VigilRun(rig: rig, state: state, pair: true, seconds: Self.seconds, until: Self.enoughReadings)
            try first.expectCleanExit()
            try #require(!first.events(named: "paired").isEmpty, "first run did not pair\n\(first.diagnostics)")
            // The peripheral must be free (and advertising) again before the second run.
            let freed = try rig.waitFor(since: first.rigStart, timeout: .seconds(5)) {
                $0.string("event") == "disconnected"
            }
            #expect(freed != nil, "rig never saw the first run's link go away")

            let second = try VigilRun(rig: rig, state: state, pair: true, seconds: Self.seconds, until: Self.enoughReadings)
            try second.expectCleanExit()
            #expect(second.events(named: "paired").isEmpty, "second run paired again\n\(second.diagnostics)")
            let encrypted = try #require(second.events(named: "encrypted").first,
                                         "no encrypted event in the second run\n\(second.diagnostics)")
            #expect(encrypted.bool("bonded") == true)
            #expect(second.rigRecords.contains { $0.string("event") == "encrypted" })
            #expect(!second.rigRecords.contains { $0.string("event") == "paired" }, "rig saw a second pairing")
            try Self.expectReadingsMatch(second)
        }

        // MARK: - Comparisons with the rig's log

        static func expectReadingsMatch(_ run: VigilRun, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let readings = run.events(named: "reading").filter { $0.string("kind") == "heart-rate" }
            let sent = run.rigRecords.filter { $0.string("sent") == "hrm" }
            #expect(readings.count >= minimumReadings, "\(readings.count) readings\n\(run.diagnostics)",
                    sourceLocation: sourceLocation)
            // The rig logs a value once it left; the last one may still have been in flight
            // when vigil stopped at --seconds. Nothing else may be missing or extra.
            #expect((0...1).contains(sent.count - readings.count),
                    "rig sent \(sent.count), vigil reported \(readings.count)", sourceLocation: sourceLocation)
            for (index, (reading, expected)) in zip(readings, sent).enumerated() {
                let context = Comment(rawValue: "reading \(index): \(reading) vs sent \(expected)")
                #expect(reading.string("address") == run.address, context, sourceLocation: sourceLocation)
                #expect(reading.int("bpm") == expected.int("bpm"), context, sourceLocation: sourceLocation)
                #expect(reading.string("contact") == expected.string("contact"), context, sourceLocation: sourceLocation)
                #expect(reading.has("energyExpended") == expected.has("energyExpended"), context,
                        sourceLocation: sourceLocation)
                #expect(reading.int("energyExpended") == expected.int("energyExpended"), context,
                        sourceLocation: sourceLocation)
                let got = reading.doubles("rrIntervals")
                let want = expected.doubles("rrIntervals")
                #expect(got?.count == want?.count, context, sourceLocation: sourceLocation)
                if let got, let want, got.count == want.count {
                    // 1/1024 s ticks are exact in binary floating point; allow print rounding.
                    #expect(zip(got, want).allSatisfy { abs($0 - $1) < 1e-6 }, context, sourceLocation: sourceLocation)
                }
            }
        }

        /// Battery events must report a level the rig actually served (initial read or notified).
        static func expectBatteryMatches(_ run: VigilRun, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let battery = run.events(named: "battery")
            #expect(!battery.isEmpty, "no battery event\n\(run.diagnostics)", sourceLocation: sourceLocation)
            let served = Set([87] + run.rigRecords.filter { $0.string("sent") == "battery" }.compactMap { $0.int("percent") })
            for event in battery {
                #expect(event.string("address") == run.address, sourceLocation: sourceLocation)
                #expect(event.int("percent").map(served.contains) == true,
                        "battery \(event) not among \(served.sorted())", sourceLocation: sourceLocation)
            }
        }
    }
}
