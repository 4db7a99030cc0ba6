import Foundation
import Testing

extension Interop {
    /// Faults of the controller, through the real `vigil run` against the Bumble
    /// heart-rate rig, with `H4FaultProxy` between them playing the failing controller: it
    /// vanishes mid-connection (end of stream), never answers HCI Reset, or answers bring-up
    /// and then hangs at LE Create Connection. Each must raise its fault alarm on
    /// `--events-json`, say so on stderr, and recover by itself once a controller answers again
    /// on the same address: bring-up again, fault cleared, transmitter reconnected, readings.
    ///
    /// ENODEV on the HCI user channel cannot be produced here (no Bluetooth in this kernel); its
    /// classification is asserted at the unit level in PlatformTests/FaultDeviceGoneTests.
    @Suite(bumbleRequired) struct FaultControllerInteropTests {
        /// One `vigil run` through the proxy, with what everyone logged.
        struct Outcome {
            let result: ChildProcessResult
            let events: [JSONObject]
            let rigRecords: [JSONObject]
            let proxyEvents: [String]

            var diagnostics: String {
                "vigil \(result.summary)\nproxy: \(proxyEvents)\nvigil stdout tail:\n\(result.stdoutText.suffix(3_000))"
            }

            /// Index of the first event at or after `start` that satisfies `predicate`.
            func first(after start: Int?, _ predicate: (JSONObject) -> Bool) -> Int? {
                guard let start, start < events.count else { return nil }
                return events[start...].firstIndex(where: predicate)
            }

            func heartRateReadings(in range: Range<Int>) -> [JSONObject] {
                events[range].filter { $0.string("event") == "reading" && $0.string("kind") == "heart-rate" }
            }

            /// Rig lines after its `index`-th (1-based) `connected` event.
            func rigSession(_ index: Int) -> [JSONObject] {
                let starts = rigRecords.indices.filter { rigRecords[$0].string("event") == "connected" }
                guard starts.count >= index else { return [] }
                let end = starts.count > index ? starts[index] : rigRecords.count
                return Array(rigRecords[starts[index - 1]..<end])
            }
        }

        /// `until`: stop vigil as soon as this holds for its events so far (`seconds` is the cap).
        static func run(_ fault: H4FaultProxy.Fault, seconds: Int, until stop: @escaping ([JSONObject]) -> Bool) throws -> Outcome {
            let rig = try Rig.launch(arguments: ["--rate-hz", "5"])
            defer { rig.stop() }
            let proxy = try H4FaultProxy(upstreamPort: rig.port, fault: fault)
            defer { proxy.stop() }
            let state = try StateDirectory()
            let name = try #require(try rig.info().string("name"))
            let config = try state.writeConfig(name: name, address: nil, pair: false)
            let rigStart = rig.lineCount
            let result = try VigilProcess().run(
                ["run", "--hci", "tcp:127.0.0.1:\(proxy.port)", "--config", config.path, "--state-dir", state.url.path,
                 "--events-json", "--log-level", "info", "--seconds", "\(seconds)"],
                timeout: .seconds(seconds + 30), stopWhen: { [events = NDJSONStream()] soFar in stop(events.update(soFar.stdout)) })
            _ = try rig.waitFor(since: rigStart, timeout: .seconds(2)) { $0.string("event") == "hci-client-closed" }
            return Outcome(result: result, events: (try? result.ndjson()) ?? [], rigRecords: try rig.records(since: rigStart),
                           proxyEvents: proxy.events)
        }

        static func isAlarm(_ kind: String, _ change: String) -> (JSONObject) -> Bool {
            { $0.string("event") == "alarm" && $0.string("alarm") == kind && $0.string("change") == change }
        }

        static func isBluetooth(_ state: String) -> (JSONObject) -> Bool {
            { $0.string("event") == "bluetooth" && $0.string("state") == state }
        }

        static func connected(_ event: JSONObject) -> Bool { event.string("event") == "connected" }

        /// The run has shown its recovery: `alarm` cleared, and after the last connection (the
        /// one through the controller that answers) more heart-rate readings than the tests
        /// require (5, the last of which may be in flight), at 5 a second.
        static func recovered(from alarm: String) -> ([JSONObject]) -> Bool {
            { events in
                guard events.contains(where: isAlarm(alarm, "cleared")),
                      let raised = events.firstIndex(where: isAlarm(alarm, "raised")),
                      let link = events.lastIndex(where: connected), link > raised else { return false }
                return events[link...].filter { $0.string("event") == "reading" && $0.string("kind") == "heart-rate" }.count >= 7
            }
        }

        /// The readings of the recovered session equal, one for one and in order, what the rig
        /// sent on its second link (the last one may still have been in flight at --seconds).
        static func expectSecondSessionMatchesRig(_ outcome: Outcome, from start: Int,
                                                  sourceLocation: SourceLocation = #_sourceLocation) {
            let readings = outcome.heartRateReadings(in: start..<outcome.events.count)
            let sent = outcome.rigSession(2).filter { $0.string("sent") == "hrm" }
            #expect(readings.count >= 5, "\(readings.count) readings after recovery\n\(outcome.diagnostics)", sourceLocation: sourceLocation)
            #expect((0...1).contains(sent.count - readings.count), "rig sent \(sent.count), vigil reported \(readings.count)",
                    sourceLocation: sourceLocation)
            #expect(zip(readings, sent).allSatisfy { $0.int("bpm") == $1.int("bpm") },
                    "\(readings.map { $0.int("bpm") ?? -1 }) vs \(sent.map { $0.int("bpm") ?? -1 })", sourceLocation: sourceLocation)
        }

        /// The H4 TCP peer closes while the heart-rate monitor is connected and notifying, and
        /// nothing listens for 1.5 s (a reopen is refused), then a controller is back on the same
        /// address. Expected: end of stream logged, bluetooth unavailable, fault:controller-lost
        /// raised (not no-controller: it was up before); then bring-up again, the fault cleared,
        /// the monitor reconnected and its readings resume one for one with what the rig sent.
        @Test func controllerEndOfStreamMidConnectionRaisesControllerLostThenRecovers() throws {
            let outcome = try Self.run(.vanishAfterNotifications(10, outage: .milliseconds(1_500)), seconds: 20,
                                   until: Self.recovered(from: "fault:controller-lost"))
            let stderr = outcome.result.stderrText
            try #require(!outcome.result.timedOut && outcome.result.exitCode == 0, "\(outcome.diagnostics)")
            #expect(outcome.proxyEvents.contains("connection 1 vanished"), "\(outcome.proxyEvents)")
            #expect(outcome.proxyEvents.contains("connection 2 accepted"), "\(outcome.proxyEvents)")

            let firstLink = try #require(outcome.first(after: 0, Self.connected), "never connected\n\(outcome.diagnostics)")
            let lost = try #require(outcome.first(after: firstLink, Self.isBluetooth("unavailable")), "no unavailable\n\(outcome.diagnostics)")
            #expect(outcome.events[lost].string("reason")?.contains("the controller went away (end of stream)") == true,
                    "\(outcome.events[lost])")
            #expect(outcome.heartRateReadings(in: firstLink..<lost).count >= 5, "readings before the fault\n\(outcome.diagnostics)")
            let raised = try #require(outcome.first(after: lost, Self.isAlarm("fault:controller-lost", "raised")),
                                      "controller-lost never raised\n\(outcome.diagnostics)")
            let back = try #require(outcome.first(after: raised, Self.isBluetooth("on")), "controller never back\n\(outcome.diagnostics)")
            let cleared = try #require(outcome.first(after: raised, Self.isAlarm("fault:controller-lost", "cleared")),
                                       "controller-lost never cleared\n\(outcome.diagnostics)")
            #expect(cleared > back)
            let secondLink = try #require(outcome.first(after: back, Self.connected), "never reconnected\n\(outcome.diagnostics)")
            #expect(!outcome.events.contains(where: Self.isAlarm("fault:no-controller", "raised")),
                    "a controller that was up and went away is lost, not absent")
            Self.expectSecondSessionMatchesRig(outcome, from: secondLink)

            #expect(stderr.contains("the controller went away (end of stream)"), "\(stderr.suffix(3_000))")
            // The outage: the reopen after 1 s is refused, the one 2 s later succeeds.
            #expect(stderr.contains("cannot open the Bluetooth controller"), "\(stderr.suffix(3_000))")
            #expect(stderr.components(separatedBy: "controller bring-up: HCI Reset").count - 1 >= 2, "\(stderr.suffix(3_000))")
        }

        /// A controller that accepts the connection and never answers HCI Reset: after the
        /// 3 s command timeout a clear line names the command, fault:no-controller is raised
        /// (it was never up), the transport is closed and reopened, and the next controller
        /// (answering) clears the fault and the monitor's readings arrive.
        @Test func aControllerThatNeverAnswersResetIsNoControllerUntilOneAnswers() throws {
            let outcome = try Self.run(.ignoreFirstConnection, seconds: 16, until: Self.recovered(from: "fault:no-controller"))
            let stderr = outcome.result.stderrText
            try #require(!outcome.result.timedOut && outcome.result.exitCode == 0, "\(outcome.diagnostics)")
            #expect(stderr.contains("controller did not answer Reset (0x0c03) within"), "\(stderr.suffix(3_000))")
            #expect(stderr.contains("reopening the controller in"), "\(stderr.suffix(3_000))")
            #expect(Array(outcome.proxyEvents.prefix(3)) == ["connection 1 accepted", "connection 1 closed by vigil", "connection 2 accepted"],
                    "\(outcome.proxyEvents)")

            let unavailable = try #require(outcome.first(after: 0, Self.isBluetooth("unavailable")), "\(outcome.diagnostics)")
            #expect(outcome.events[unavailable].string("reason")?.contains("did not answer Reset") == true, "\(outcome.events[unavailable])")
            let raised = try #require(outcome.first(after: unavailable, Self.isAlarm("fault:no-controller", "raised")),
                                      "no-controller never raised\n\(outcome.diagnostics)")
            let on = try #require(outcome.first(after: raised, Self.isBluetooth("on")), "\(outcome.diagnostics)")
            #expect(outcome.first(after: raised, Self.isAlarm("fault:no-controller", "cleared")) != nil, "\(outcome.diagnostics)")
            #expect(!outcome.events.contains(where: Self.connected) || outcome.first(after: 0, Self.connected)! > on)
            let link = try #require(outcome.first(after: on, Self.connected), "never connected\n\(outcome.diagnostics)")
            // The rig saw only the answering controller's link: its first session is vigil's first.
            let readings = outcome.heartRateReadings(in: link..<outcome.events.count)
            let sent = outcome.rigSession(1).filter { $0.string("sent") == "hrm" }
            #expect(readings.count >= 5, "\(outcome.diagnostics)")
            #expect((0...1).contains(sent.count - readings.count), "rig sent \(sent.count), vigil reported \(readings.count)")
        }

        /// A controller that answers bring-up, then hangs when the host asks it to connect (LE
        /// Create Connection gets no Command Status): the timeout names the command, the fault
        /// is controller-lost (it had been up), the transport is reopened, bring-up runs again
        /// and the monitor is connected through the controller that answers.
        @Test func aControllerThatHangsAfterBringUpIsLostUntilReopened() throws {
            let leCreateConnection: UInt16 = 0x200D  // Core v5.4 Vol 4 Part E §7.8.12
            let outcome = try Self.run(.fallSilentAtCommand(leCreateConnection), seconds: 18,
                                   until: Self.recovered(from: "fault:controller-lost"))
            let stderr = outcome.result.stderrText
            try #require(!outcome.result.timedOut && outcome.result.exitCode == 0, "\(outcome.diagnostics)")
            #expect(outcome.proxyEvents.contains("connection 1 fell silent at command 0x200d"), "\(outcome.proxyEvents)")
            #expect(stderr.contains("controller did not answer LE Create Connection (0x200d) within"), "\(stderr.suffix(3_000))")

            let firstOn = try #require(outcome.first(after: 0, Self.isBluetooth("on")), "\(outcome.diagnostics)")
            let unavailable = try #require(outcome.first(after: firstOn, Self.isBluetooth("unavailable")), "\(outcome.diagnostics)")
            let raised = try #require(outcome.first(after: unavailable, Self.isAlarm("fault:controller-lost", "raised")),
                                      "controller-lost never raised\n\(outcome.diagnostics)")
            let back = try #require(outcome.first(after: raised, Self.isBluetooth("on")), "\(outcome.diagnostics)")
            #expect(outcome.first(after: raised, Self.isAlarm("fault:controller-lost", "cleared")) != nil, "\(outcome.diagnostics)")
            let link = try #require(outcome.first(after: back, Self.connected), "never connected\n\(outcome.diagnostics)")
            #expect(outcome.first(after: 0, Self.connected) == link, "a link before the hang? \(outcome.diagnostics)")
            #expect(outcome.heartRateReadings(in: link..<outcome.events.count).count >= 5, "\(outcome.diagnostics)")
            #expect(stderr.components(separatedBy: "controller bring-up: HCI Reset").count - 1 >= 2, "\(stderr.suffix(3_000))")
        }
    }
}
