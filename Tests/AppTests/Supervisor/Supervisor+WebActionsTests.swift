import Alarms
import App
import Clocks
import Simulator
import Testing
import Web

/// The page's snooze, acknowledge and snooze all: the button's engine calls and rules.
@Suite struct SupervisorWebActionsTests {
    static let headers = [SupervisorWebTests.cookie, SupervisorWebTests.origin]
    static let urgentLow = GlucoseScript([.init(at: .zero, milligramsPerDeciliter: 45)])

    static func sounding(_ world: SupervisorWorld, _ kind: AlarmKind) -> ActiveAlarm? {
        world.supervisor.face?.alarms.engine.activeAlarms.first { $0.kind == kind }
    }

    @Test func snoozeSilencesTheAlarmAsAShortPressWould() throws {
        var world = try SupervisorWorld(configure: SupervisorWebTests.web, glucose: Self.urgentLow)
        world.advance(by: .seconds(10))
        #expect(Self.sounding(world, .urgentLow)?.isSounding == true)
        let response = world.webPost("/alarms/snooze", form: "alarm=urgent-low", Self.headers)
        #expect(response?.status == 200)
        #expect(response?.body.contains(#"{"name":"urgent-low","title":"Urgent low","priority":"high","status":"snoozed""#) == true)
        #expect(Self.sounding(world, .urgentLow)?.status == .snoozed(until: world.now + .seconds(15 * 60)))
        #expect(world.logged("web: urgent-low snoozed for 15 min, from the page"))
        // Recorded like a press: the engine's event in the history.
        let recorded = (world.pending + world.written).contains { record in
            if case let .alarms(events, _, _) = record { events.contains { $0.kind == .urgentLow && $0.change == .snoozed(until: world.now + .seconds(900)) } } else { false }
        }
        #expect(recorded)
    }

    @Test func urgentLowSnoozesForAtMost30Minutes() throws {
        let long = ButtonActions(snoozeOverrides: [.urgentLow: .seconds(3 * 3600)])
        var world = try SupervisorWorld(configure: SupervisorWebTests.web, glucose: Self.urgentLow, buttonActions: long)
        world.advance(by: .seconds(10))
        #expect(world.webPost("/alarms/snooze", form: "alarm=urgent-low", Self.headers)?.status == 200)
        #expect(Self.sounding(world, .urgentLow)?.status == .snoozed(until: world.now + .seconds(30 * 60)))
    }

    @Test func snoozeAllNeverCoversUrgentLow() throws {
        var world = try SupervisorWorld(configure: SupervisorWebTests.web, glucose: Self.urgentLow)
        world.advance(by: .seconds(10))
        let response = world.webPost("/alarms/snooze-all", form: "minutes=120", Self.headers)
        #expect(response?.status == 200)
        #expect(Self.sounding(world, .urgentLow)?.isSounding == true)
        #expect(response?.body.contains(#""canAcknowledge":true,"coveredBySnoozeAll":false"#) == true)
        let until = (SupervisorWorld.setClock + (world.now - SupervisorWorld.start) + .seconds(7200)).millisecondsSinceEpoch
        #expect(response?.body.contains(#""snoozeAllUntil":\#(until)"#) == true)
        #expect(world.logged("web: snooze all for 120 min, from the page"))
    }

    @Test func snoozeAllTakesMinutesWithinTheEnginesMaximum() throws {
        var world = try SupervisorWorld(configure: SupervisorWebTests.web)
        for form in ["minutes=0", "minutes=100000", "minutes=ten", "nothing=1"] {
            let response = world.webPost("/alarms/snooze-all", form: form, Self.headers)
            #expect(response?.status == 400, "\(form)")
            #expect(response?.body.hasPrefix(#"{"error":"minutes must be a whole number from 1 to "#) == true)
        }
        let notAForm = world.webRequest("POST /alarms/snooze-all HTTP/1.1\r\nHost: vigil.local:8080\r\nCookie: vigil_token=\(SupervisorWebTests.token)\r\n"
                                        + "Origin: http://vigil.local:8080\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
        #expect(notAForm?.status == 400)
    }

    @Test func acknowledgeSilencesASoundingAlarmOnly() throws {
        var world = try SupervisorWorld(configure: SupervisorWebTests.web, glucose: Self.urgentLow)
        world.advance(by: .seconds(10))
        let response = world.webPost("/alarms/acknowledge", form: "alarm=urgent-low", Self.headers)
        #expect(response?.status == 200)
        #expect(Self.sounding(world, .urgentLow)?.status == .snoozed(until: world.now + AlarmKind.urgentLow.acknowledgementInterval))
        #expect(world.logged("web: urgent-low acknowledged, from the page"))
        let again = world.webPost("/alarms/acknowledge", form: "alarm=urgent-low", Self.headers)
        #expect(again?.status == 409)
    }

    @Test func anAlarmThatIsNotActiveIs404() throws {
        var world = try SupervisorWorld(configure: SupervisorWebTests.web, glucose: GlucoseScript([.init(at: .zero, milligramsPerDeciliter: 120)]))
        world.advance(by: .seconds(10))
        for name in ["urgent-low", "signal-loss:cgm", "no-such-alarm"] {
            let response = world.webPost("/alarms/snooze", form: "alarm=\(name)", Self.headers)
            #expect(response?.status == 404)
            #expect(response?.body == #"{"error":"no such alarm is active"}"#)
        }
        #expect(world.webPost("/alarms/snooze", form: "", Self.headers)?.status == 400)
    }
}
