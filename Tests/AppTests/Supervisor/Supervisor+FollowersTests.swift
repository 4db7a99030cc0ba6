import Clocks
import Readings
import Transmitters
import Testing
import Web
@testable import Alarms
@testable import App

/// The supervisor's glue for followers: what a follower took from its server reaches the alarm
/// engine dated by its measured time, the history as followed, and not when a Bluetooth source
/// gave the same moment. The follower's exchange is answered here directly, as the HTTP client
/// hands it over (`followerExchangeEnded`).
@Suite struct SupervisorFollowersTests {
    static let start = ClockReadings(monotonic: .zero + .seconds(7200), wall: WallClockTime(secondsSinceEpoch: 1_764_300_000))
    static let site = HTTP.URL(scheme: .https, host: "their-site.example")

    var supervisor: Supervisor
    var now = Self.start

    init() {
        var configuration = Supervisor.Configuration()
        configuration.historyPath = "/state/history.sqlite"
        configuration.followers = [(device: "emma", source: .nightscout(site: Self.site, token: nil, apiSecret: nil))]
        let alarms = AlarmConfiguration(watchedDevices: ["emma"])
        // The engine has watched the device since long before (its timer starts when it does).
        let face = ApplianceFace(alarms: ApplianceAlarms(configuration: alarms, at: .zero), drive: .active,
                                 actions: ButtonActions(), at: .zero)
        supervisor = Supervisor(appliance: Appliance(devices: [], remembered: RememberedTransmitters()), face: face, configuration: configuration)
        supervisor.receive(.historyOpened(.created), at: now)
        _ = supervisor.takeActions()
        // As if the follower's first request had gone out.
        supervisor.followers[0].inFlight = true
    }

    /// The server answers the follower's request with these entries (sgv, seconds before now).
    mutating func answer(_ entries: [(Int, Int64)]) -> [Supervisor.Action] {
        let body = "[" + entries.map { sgv, ago in
            #"{"type":"sgv","sgv":\#(sgv),"date":\#((now.wall.secondsSinceEpoch - ago) * 1000),"direction":"Flat"}"#
        }.joined(separator: ",") + "]"
        supervisor.followerExchangeEnded("emma", .success(HTTP.ClientResponse(status: 200, body: Array(body.utf8))), at: now)
        supervisor.followers[0].inFlight = true
        return supervisor.takeActions()
    }

    static func rows(_ actions: [Supervisor.Action]) -> [RecordedReading] {
        actions.flatMap { action -> [RecordedReading] in
            guard case let .record(.readings(rows, receivedAt)) = action else { return [] }
            #expect(receivedAt == nil, "dated by the server's clock, never re-dated by the board's")
            return rows
        }
    }

    @Test mutating func aFollowedUrgentLowSoundsAndIsStoredAsFollowed() throws {
        let actions = answer([(50, 90), (58, 390)])
        let rows = Self.rows(actions)
        #expect(rows.map(\.origin) == [.followed, .followed])
        #expect(rows.map(\.wallTime) == [now.wall - .seconds(390), now.wall - .seconds(90)])
        let alarms = try #require(supervisor.face?.alarms.engine.activeAlarms.map(\.kind))
        #expect(alarms.contains(.urgentLow))
        // Signal loss runs from when the newest was measured, 90 s ago, not from its arrival.
        #expect(supervisor.face?.alarms.engine.lastHeard["emma"] == now.monotonic - .seconds(90))
    }

    @Test mutating func anOldReadingDoesNotHoldOffSignalLoss() throws {
        _ = answer([(120, 25 * 60)])
        #expect(supervisor.face?.alarms.engine.lastHeard["emma"] == now.monotonic - .seconds(25 * 60))
        supervisor.face?.handleDeadline(at: now.monotonic)
        #expect(supervisor.face?.alarms.engine.activeAlarms.map(\.kind).contains(.signalLoss("emma")) == true)
        // A fresh one clears it.
        _ = answer([(121, 30)])
        supervisor.face?.handleDeadline(at: now.monotonic)
        #expect(supervisor.face?.alarms.engine.activeAlarms.map(\.kind).contains(.signalLoss("emma")) == false)
    }

    @Test mutating func aMomentABluetoothSourceGaveIsNotCountedAgain() {
        let direct = Reading(device: "dexcom", value: .glucose(.init(milligramsPerDeciliter: 101), trend: .flat),
                             time: .wallClock(now.wall - .seconds(300)))
        supervisor.noteDirectGlucose(.readings("dexcom", peer: nil, [direct]), at: now)
        let actions = answer([(103, 300 + 140), (99, 300 - 100), (97, 10)])
        #expect(Self.rows(actions).map(\.wallTime) == [now.wall - .seconds(10)], "within 150 s of the direct one: dropped")
        #expect(actions.contains { if case let .log(_, line) = $0 { line == "emma: 2 followed readings a Bluetooth source already gave are not counted again" } else { false } })
    }

    @Test func theFollowerIsListedWithItsLink() {
        let links = supervisor.links(at: now.monotonic)
        #expect(links.map(\.device) == ["emma"])
        #expect(links.first?.link == .reachingServer("Nightscout"))
    }

    @Test mutating func itsDeadlineIsTheSupervisors() {
        _ = answer([(120, 60)])
        supervisor.followers[0].inFlight = false
        #expect(supervisor.followersNextDeadline == now.monotonic + .seconds(270))
        #expect(supervisor.nextDeadline.map { $0 <= now.monotonic + .seconds(270) } == true)
    }
}

@Suite struct DirectGlucoseMomentsTests {
    @Test func coversWithinTheWindowOnEitherSide() {
        var moments = DirectGlucoseMoments()
        let t = WallClockTime(secondsSinceEpoch: 1_764_300_000)
        for offset in [0, 300, 600] as [Int64] { moments.note(t + .seconds(offset)) }
        #expect(moments.covers(t + .seconds(150)))
        #expect(moments.covers(t - .seconds(150)))
        #expect(!moments.covers(t - .seconds(151)))
        #expect(moments.covers(t + .seconds(449)))
        #expect(!moments.covers(t + .seconds(760)))
    }

    @Test func keepsTheNewest() {
        var moments = DirectGlucoseMoments()
        let t = WallClockTime(secondsSinceEpoch: 1_764_300_000)
        for i in 0..<(DirectGlucoseMoments.capacity + 10) { moments.note(t + .seconds(Int64(i) * 300)) }
        #expect(!moments.covers(t))
        #expect(moments.covers(t + .seconds(Int64(DirectGlucoseMoments.capacity + 9) * 300)))
    }
}
