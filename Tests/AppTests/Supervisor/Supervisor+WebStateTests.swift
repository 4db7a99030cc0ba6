import Alarms
import Readings
@testable import App
import Clocks
import Simulator
import Testing
import Web

/// `/state.json` and the `state` events of `/events` on the virtual clock.
@Suite struct SupervisorWebStateTests {
    static let cookie = SupervisorWebTests.cookie
    static func flat(_ value: Double) -> GlucoseScript { GlucoseScript([.init(at: .zero, milligramsPerDeciliter: value)]) }

    @Test func theStateHoldsGlucoseTheChartAndTheDevice() throws {
        var world = try SupervisorWorld(configure: {
            SupervisorWebTests.web(&$0)
            $0.website?.devices = [.init(id: "cgm", kind: "bthome")]
        }, glucose: Self.flat(123))
        world.advance(by: .seconds(60))
        let answer = world.webGet("/state.json", [Self.cookie])
        let body = try #require(answer?.body)
        #expect(answer?.status == 200)
        #expect(answer?.header("Content-Type") == "application/json")
        #expect(body.contains(#""glucose":{"device":"cgm","value":123,"#))
        #expect(body.contains(#""direction":"Flat""#))
        #expect(body.contains(#""stale":false"#))
        #expect(body.contains(#""clockSet":true"#))
        #expect(body.contains(#""thresholds":{"urgentLow":55,"low":70,"high":250"#))
        #expect(body.contains(#""devices":[{"id":"cgm","type":"bthome","link":"listening","linkDetail":null,"lastSeen":"#))
        #expect(body.contains(#""alarms":[]"#) && body.contains(#""faults":[]"#))
        // Every reading of the minute, oldest first.
        let readings = try #require(body.firstRange(of: #""readings":[["#))
        let points = body[readings.lowerBound...].prefix { $0 != "m" }.components(separatedBy: ",123]").count - 1
        #expect(points >= 15, "\(points) points in a minute of a reading every 3 s")
    }

    /// The end the page shows is the life the expiry alarm counts to, less the sensor's age.
    @Test func aSensorEndsAtItsDeclaredLifeLessItsAge() {
        let now = WallClockTime(secondsSinceEpoch: 1_800_000_000)
        let ends = Supervisor.sensorEnds(age: .seconds(4 * 86_400), life: .seconds(10 * 86_400 + 12 * 3600), wallNow: now)
        #expect(ends == now + .seconds(6 * 86_400 + 12 * 3600))
        #expect(Supervisor.sensorEnds(age: nil, life: .seconds(86_400), wallNow: now) == nil)
        #expect(Supervisor.sensorEnds(age: .seconds(60), life: nil, wallNow: now) == nil)
    }

    @Test func beforeTheFirstReadingGlucoseIsNullAndAnUnsetClockGivesNoTimes() throws {
        var world = try SupervisorWorld(configure: SupervisorWebTests.web, wallAtStart: SupervisorWorld.unsetClock, readings: false)
        world.advance(by: .seconds(5))
        let body = try #require(world.webGet("/state.json", [Self.cookie])?.body)
        #expect(body.contains(#""now":null,"clockSet":false"#))
        #expect(body.contains(#""glucose":null"#))
        // The clock-not-set fault, with its sentence.
        #expect(body.contains(#""faults":[{"name":"fault:clock-not-set","title":"Clock not set","detail":"#))
    }

    @Test func aReadingPushesAStateEventToEveryStream() throws {
        var world = try SupervisorWorld(configure: SupervisorWebTests.web, glucose: Self.flat(140))
        world.advance(until: .seconds(60)) { $0.observedReadingCount > 0 }
        let first = world.webOpenStream(), second = world.webOpenStream()
        #expect(world.webStateEvents(on: first).count == 1, "a state at once")
        let head = try #require(WebResponse.parse(world.web.read[first] ?? []))
        #expect(head.0.header("Content-Type") == "text/event-stream")
        #expect(head.0.body.hasPrefix("event: state\nretry: 5000\ndata: {"))
        world.advance(by: .seconds(6))
        for stream in [first, second] {
            let states = world.webStateEvents(on: stream)
            #expect(states.count >= 2)
            #expect(states.last?.contains(#""value":140"#) == true)
        }
    }

    /// A stream whose browser does not read holds one state at most; once it reads, it gets
    /// the newest state once, not every one it missed. (Within the server's 10 s send timer:
    /// past it, a stream that takes nothing is closed, docs/http.md "Time".)
    @Test func aStreamThatDoesNotReadGetsOnlyTheNewestStateOnceItDrains() throws {
        var world = try SupervisorWorld(configure: SupervisorWebTests.web,
                                        glucose: GlucoseScript([.init(at: .zero, milligramsPerDeciliter: 100), .init(at: .seconds(600), milligramsPerDeciliter: 160)]))
        world.advance(until: .seconds(60)) { $0.observedReadingCount > 0 }
        let stalled = world.webOpenStream(reading: false)
        let reading = world.webOpenStream()
        world.advance(by: .seconds(8))
        let waiting = String(decoding: world.supervisor.webOutput(of: stalled), as: UTF8.self)
        #expect(waiting.components(separatedBy: "event: state").count - 1 == 1, "only the first event waits")
        let live = world.webStateEvents(on: reading).count
        #expect(live >= 3, "\(live) states to the stream that reads")
        world.web.notReading.remove(stalled)
        world.webTurn()
        world.webTurn()
        let states = world.webStateEvents(on: stalled)
        #expect(states.count == 2, "the first and the newest: \(states.count)")
        #expect(states.last == world.webStateEvents(on: reading).last)
        #expect(!world.web.closed.contains(stalled))
    }
}

/// After a restart the chart is not empty: the history hands over its last four days.
@Suite struct SupervisorWebRecentGlucoseTests {
    @Test func theHistoryFillsTheWindowWhenItOpens() throws {
        var world = try SupervisorWorld(configure: SupervisorWebTests.web, historyOpens: false, readings: false)
        let hourAgo = SupervisorWorld.setClock - .seconds(3600), weekAgo = SupervisorWorld.setClock - .seconds(7 * 24 * 3600)
        world.web.storedGlucose = [
            RecordedReading(device: "cgm", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 111), trend: .flat), wallTime: weekAgo),
            RecordedReading(device: "cgm", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 99), trend: .flat), wallTime: hourAgo),
            RecordedReading(device: "meter", value: .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 104), context: nil), wallTime: hourAgo),
        ]
        world.historyOpens = true
        world.advance(until: .seconds(120)) { $0.supervisor.historyIsOpen }
        let body = try #require(world.webGet("/state.json", [SupervisorWebTests.cookie])?.body)
        let hour = hourAgo.millisecondsSinceEpoch
        #expect(body.contains(#""readings":[[\#(hour),99]],"meter":[[\#(hour),104]]"#), "a week-old reading is past the window")
        #expect(body.contains(#""glucose":{"device":"cgm","value":99"#))
    }
}
