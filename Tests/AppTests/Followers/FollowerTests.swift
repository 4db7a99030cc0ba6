import Clocks
import Readings
import Testing
import Web
@testable import App

@Suite struct FollowerTests {
    static let site = FollowerSource.nightscout(site: HTTP.URL(scheme: .https, host: "their-site.example"), token: "reader-0123456789", apiSecret: nil)

    @Test func takesTheServersHistoryOldestFirstDatedByTheServer() {
        var world = FollowerHarness(Self.site)
        #expect(world.sent.count == 1)
        world.answer(200, "[" + [entry(120, at: -60), entry(118, at: -360, direction: nil), entry(125, at: -660, direction: "SingleUp")].joined(separator: ",") + "]")
        #expect(world.summary.map(\.0) == [125, 118, 120])
        #expect(world.summary.map(\.1) == [-660, -360, -60])
        #expect(world.summary.map(\.2) == [.singleUp, nil, .flat])
        #expect(world.readings.allSatisfy { $0.device == "remote" })
        #expect(world.readings.last?.sensorStamp == SensorStamp(run: "nightscout", count: (1_764_300_000 - 60) * 1000))
        #expect(world.links == [.reachable])
        #expect(world.follower.link == .reachable)
    }

    @Test func pollsSoonAfterTheNextReadingIsDueAndAsksForWhatCameAfterTheNewest() {
        var world = FollowerHarness(Self.site)
        world.answer(200, "[" + entry(120, at: -60) + "," + entry(121, at: -360) + "]")
        // The newest was measured 60 s ago: the next is due in 240 s, on the server 30 s later.
        #expect(world.wait == .seconds(270))
        world.passToDeadline()
        #expect(world.sent.count == 2)
        #expect(world.query["find[date][$gt]"] == String((1_764_300_000 - 60) * 1000))
        world.answer(200, "[" + entry(122, at: 240) + "," + entry(120, at: -60) + "]")
        #expect(world.summary.map(\.0) == [121, 120, 122], "the repeated reading is not taken twice")
    }

    @Test func aLateReadingIsAskedForAfterOneTwoFourAndFiveMinutes() {
        var world = FollowerHarness(Self.site)
        world.answer(200, "[" + entry(120, at: -300) + "]")
        #expect(world.wait == .seconds(30))
        var waits: [Duration] = []
        for _ in 0..<5 {
            world.passToDeadline()
            world.answer(200, "[]")
            waits.append(world.wait!)
        }
        #expect(waits == [.seconds(60), .seconds(120), .seconds(240), .seconds(300), .seconds(300)])
        world.passToDeadline()
        world.answer(200, "[" + entry(99, at: 1040) + "]")
        #expect(world.readings.count == 2)
        #expect(world.wait == .seconds(320), "back on the readings' schedule")
    }

    @Test func failuresBackOffToFiveMinutesAndSayWhy() {
        var world = FollowerHarness(Self.site)
        var waits: [Duration] = []
        for _ in 0..<6 {
            world.fail(.connectFailed("connection refused"))
            waits.append(world.passToDeadline()!)
        }
        #expect(waits == [.seconds(15), .seconds(30), .seconds(60), .seconds(120), .seconds(240), .seconds(300)])
        #expect(world.links == [.unreachable("could not connect: connection refused")], "said once, not at every attempt")
        #expect(world.logs.filter { $0.0 == .warning }.count == 1)
        world.answer(503, "")
        #expect(world.follower.link == .unreachable("the server answered HTTP 503 (a server error)"))
        world.passToDeadline()
        world.answer(200, "[]")
        #expect(world.follower.link == .reachable)
        #expect(world.logs.last?.1 == "remote: Nightscout reachable again")
    }

    @Test func aRefusedTokenIsSaidAndNotAskedAgainForHalfAnHour() {
        var world = FollowerHarness(Self.site)
        world.answer(401, #"{"status":401,"message":"Unauthorized","description":"Invalid/Missing"}"#)
        #expect(world.follower.link == .refused("the site refused the token (HTTP 401)"))
        #expect(world.logs.last?.0 == .error)
        #expect(!world.logs.contains { $0.1.contains("reader-0123456789") }, "no secret in a log line")
        #expect(world.wait == .seconds(1800))
    }

    @Test func aReadingFromTheFutureIsRefusedAndOneJustAheadIsDatedNow() {
        var world = FollowerHarness(Self.site)
        world.answer(200, "[" + entry(130, at: 600) + "," + entry(131, at: 90) + "," + entry(132, at: -300) + "]")
        #expect(world.summary.map(\.0) == [132, 131])
        #expect(world.summary.map(\.1) == [-300, 0])
        #expect(world.logs.contains { $0.0 == .warning && $0.1.contains("ahead of the wall clock, is refused") })
        world.passToDeadline()
        #expect(world.query["find[date][$gt]"] == String((1_764_300_000 + 90) * 1000), "the next fetch asks after the server's own date")
    }

    @Test func nothingIsTakenBeforeTheWallClockIsSet() {
        var world = FollowerHarness(Self.site)
        world.now = ClockReadings(monotonic: world.now.monotonic, wall: WallClockTime(secondsSinceEpoch: 86_400))
        world.answer(200, "[" + entry(120, at: -60) + "]")
        #expect(world.readings.isEmpty)
        #expect(world.logs.contains { $0.1.contains("the wall clock is not set") })
    }

    @Test func theScheduleFollowsAMinuteByMinuteSource() {
        var world = FollowerHarness(Self.site)
        world.answer(200, "[" + entry(120, at: -10) + "," + entry(121, at: -70) + "]")
        #expect(world.follower.readingInterval == .seconds(60))
        #expect(world.wait == .seconds(80))
    }

    @Test func anUnreadableAnswerIsAFailureWithItsReason() {
        var world = FollowerHarness(Self.site)
        world.answer(200, "<html>")
        #expect(world.follower.link == .unreachable("the entries (HTTP 200) is not JSON at byte 0: unexpected byte 0x3c where a value should be"))
        world.passToDeadline()
        world.answer(200, #"{"entries": []}"#)
        #expect(world.follower.link == .unreachable("the entries are not a JSON array"))
    }

    @Test func doublingIsCapped() {
        #expect(Follower.doubling(.seconds(15), times: 1000, cap: .seconds(300)) == .seconds(300))
        #expect(Follower.doubling(.seconds(15), times: 0, cap: .seconds(300)) == .seconds(15))
    }
}
