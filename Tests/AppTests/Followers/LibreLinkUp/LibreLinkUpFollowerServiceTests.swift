import Clocks
import Readings
import Testing
import Web
@testable import App

@Suite struct LibreLinkUpFollowerServiceTests {
    static let source = FollowerSource.libreLinkUp(email: "parent@example.com", password: "pa55word",
                                                   server: HTTP.URL(scheme: .https, host: "api.libreview.io"), patient: "emma")
    static let login = #"{"status":0,"data":{"user":{"id":"2f5e1c3a-1111-4222-8333-444455556666","country":"DE"},"authTicket":{"token":"eyJ.test.sig","expires":1764303600,"duration":3600000}}}"#
    static let connections = #"{"status":0,"data":[{"id":"c0","patientId":"p-0","firstName":"Ben","lastName":"Lee"},{"id":"c1","patientId":"p-1","firstName":"Emma","lastName":"Lee"}]}"#
    static let graph = """
        {"status":0,"data":{"connection":{"patientId":"p-1","glucoseMeasurement":{"FactoryTimestamp":"11/28/2025 3:19:00 AM","Timestamp":"11/28/2025 4:19:00 AM","type":1,"ValueInMgPerDl":112,"TrendArrow":2,"GlucoseUnits":0,"Value":6.2}},
         "graphData":[{"FactoryTimestamp":"11/28/2025 3:05:00 AM","Timestamp":"11/28/2025 4:05:00 AM","type":0,"ValueInMgPerDl":118,"GlucoseUnits":0,"Value":6.5},
                      {"FactoryTimestamp":"11/28/2025 2:50:00 AM","Timestamp":"11/28/2025 3:50:00 AM","type":0,"GlucoseUnits":0,"Value":7.0},
                      {"FactoryTimestamp":"not a time","ValueInMgPerDl":100}]}}
        """

    @Test func followsTheRedirectLogsInChoosesThePatientAndReadsTheGraph() {
        var world = FollowerHarness(Self.source)
        #expect(world.last.url.host == "api.libreview.io")
        #expect(world.path == "/llu/auth/login")
        #expect(world.lastBody?["email"]?.string == "parent@example.com")
        #expect(world.header("product") == "llu.android")
        #expect(world.header("version") == "4.16.0")
        #expect(world.header("Authorization") == nil)
        world.answer(200, #"{"status":0,"data":{"redirect":true,"region":"eu"}}"#)
        #expect(world.last.url.host == "api-eu.libreview.io")
        #expect(world.path == "/llu/auth/login")
        world.answer(200, Self.login)
        #expect(world.path == "/llu/connections")
        #expect(world.header("Authorization") == "Bearer eyJ.test.sig")
        #expect(world.header("Account-Id") == "3e1ee00b06823ddaa930860f07dc69f445e6d76f2774684b4f29252d218ff74c")
        world.answer(200, Self.connections)
        #expect(world.path == "/llu/connections/p-1/graph")
        world.answer(200, Self.graph)
        #expect(world.summary.map(\.1) == [-1800, -900, -60])
        #expect(world.summary.map { ($0.0 * 10).rounded() / 10 } == [126.1, 118, 112], "mmol/L when no mg/dL value")
        #expect(world.summary.map(\.2) == [nil, nil, .fortyFiveDown])
        #expect(world.logs.contains { $0.1 == "remote: 1 records from LibreLinkUp are not glucose readings Vigil uses" })
        // A reading a minute: the next soon after it is on the server.
        #expect(world.wait == .seconds(15))
    }

    @Test func anExpiredTokenLogsInAgain() {
        var world = FollowerHarness(Self.source)
        world.answer(200, Self.login)
        world.answer(200, Self.connections)
        world.answer(200, Self.graph)
        world.passToDeadline()
        world.answer(401, "")
        #expect(world.path == "/llu/auth/login")
        world.answer(200, Self.login)
        world.answer(200, Self.connections)
        #expect(world.path == "/llu/connections/p-1/graph")
    }

    @Test func aGraphNoLongerThereChoosesThePatientAgain() {
        var world = FollowerHarness(Self.source)
        world.answer(200, Self.login)
        world.answer(200, Self.connections)
        world.answer(404, "")
        #expect(world.follower.link == .unreachable("the server answered HTTP 404"))
        world.passToDeadline()
        #expect(world.path == "/llu/connections")
    }

    @Test func theTokenIsRenewedBeforeItExpires() {
        var world = FollowerHarness(Self.source)
        world.answer(200, Self.login.replacingExpiry(with: FollowerHarness.start.wall.secondsSinceEpoch + 200))
        world.answer(200, Self.connections)
        world.answer(200, Self.graph)
        world.passToDeadline()
        #expect(world.path == "/llu/auth/login", "less than five minutes left")
    }

    @Test(arguments: [
        (#"{"status":2,"error":{"message":"notAuthenticated"}}"#, "LibreLinkUp refused the email or password"),
        (#"{"status":4,"data":{"step":{"type":"tou","componentName":"AcceptDocument"},"authTicket":{"token":"t","expires":1,"duration":3600000}}}"#,
         "LibreLinkUp asks the account to accept its terms of use first: log in to the LibreLinkUp app with this account and accept"),
        (#"{"status":4,"data":{"step":{"type":"pp"}}}"#,
         "LibreLinkUp asks the account to accept its privacy policy first: log in to the LibreLinkUp app with this account and accept"),
    ])
    func refusalsSayWhatToDo(_ answer: String, _ line: String) {
        var world = FollowerHarness(Self.source)
        world.answer(200, answer)
        #expect(world.follower.link == .refused(line))
        #expect(world.wait == .seconds(1800))
        #expect(world.sent.count == 1)
    }

    @Test func aLockedAccountWaitsAsLongAsTheServiceSays() {
        var world = FollowerHarness(Self.source)
        world.answer(200, #"{"status":429,"data":{"code":60,"data":{"failures":3,"interval":60,"lockout":300},"message":"locked"}}"#)
        #expect(world.wait == .seconds(300))
    }

    @Test func aPatientNobodyHasIsSaidWithTheNamesThereAre() {
        var world = FollowerHarness(.libreLinkUp(email: "e", password: "p", server: HTTP.URL(scheme: .https, host: "api.libreview.io"), patient: "Max"))
        world.answer(200, Self.login)
        world.answer(200, Self.connections)
        #expect(world.follower.link == .refused("no connection is named \"Max\" (this account follows: Ben Lee, Emma Lee)"))
    }

    @Test func aRedirectToAStrangeRegionIsRefused() {
        var world = FollowerHarness(Self.source)
        world.answer(200, #"{"status":0,"data":{"redirect":true,"region":"evil.example/x"}}"#)
        #expect(world.follower.link == .unreachable("the login redirects to a region that is not a plain name"))
    }

    @Test func aRedirectLoopEnds() {
        var world = FollowerHarness(Self.source)
        for _ in 0...Follower.maximumSteps { world.answer(200, #"{"status":0,"data":{"redirect":true,"region":"eu"}}"#) }
        #expect(world.follower.link == .unreachable("logging in did not end after 6 steps"))
    }
}

private extension String {
    func replacingExpiry(with seconds: Int64) -> String {
        var copy = self
        if let range = copy.range(of: "1764303600") { copy.replaceSubrange(range, with: String(seconds)) }
        return copy
    }
}
