import Clocks
import Readings
import Testing
import Web
@testable import App

@Suite struct DexcomShareFollowerServiceTests {
    static let account = "\"a1b2c3d4-0000-4000-8000-00000000abcd\""
    static let session = "\"b1b2c3d4-0000-4000-8000-00000000abcd\""
    static let zero = "\"00000000-0000-0000-0000-000000000000\""

    /// Values as the service writes them, newest first, `WT` in epoch milliseconds.
    static func values(_ items: [(Int, Int64, String)]) -> String {
        "[" + items.map { value, seconds, trend in
            let ms = (FollowerHarness.start.wall.secondsSinceEpoch + seconds) * 1000
            return #"{"WT":"Date(\#(ms))","ST":"Date(\#(ms))","DT":"Date(\#(ms)-0500)","Value":\#(value),"Trend":\#(trend)}"#
        }.joined(separator: ",") + "]"
    }

    @Test func logsInWithTheAccountThenTheSessionThenReads() {
        var world = FollowerHarness(.dexcomShare(username: "emma-parent", password: "pa55word", server: .outsideUnitedStates))
        #expect(world.last.method == .post)
        #expect(world.last.url.host == "shareous1.dexcom.com")
        #expect(world.path == "/ShareWebServices/Services/General/AuthenticatePublisherAccount")
        #expect(world.lastBody?["accountName"]?.string == "emma-parent")
        #expect(world.lastBody?["password"]?.string == "pa55word")
        #expect(world.lastBody?["applicationId"]?.string == "d89443d2-327c-4a6f-89e5-496bbb0317db")
        #expect(world.header("Content-Type") == "application/json")
        world.answer(200, Self.account)
        #expect(world.path == "/ShareWebServices/Services/General/LoginPublisherAccountById")
        #expect(world.lastBody?["accountId"]?.string == "a1b2c3d4-0000-4000-8000-00000000abcd")
        world.answer(200, Self.session)
        #expect(world.path == "/ShareWebServices/Services/Publisher/ReadPublisherLatestGlucoseValues")
        #expect(world.query == ["sessionId": "b1b2c3d4-0000-4000-8000-00000000abcd", "minutes": "181", "maxCount": "38"])
        world.answer(200, Self.values([(98, -40, #""FortyFiveDown""#), (101, -340, "4"), (104, -640, #""None""#)]))
        #expect(world.summary.map(\.0) == [104, 101, 98])
        #expect(world.summary.map(\.1) == [-640, -340, -40])
        #expect(world.summary.map(\.2) == [TrendDirection.none, .flat, .fortyFiveDown])
        #expect(world.readings.last?.sensorStamp?.run == "dexcom-share")
        #expect(world.wait == .seconds(300 - 40 + 20))
        #expect(world.sent.count == 3)
    }

    @Test func anExpiredSessionLogsInAgainByTheAccountIDAlone() {
        var world = FollowerHarness(.dexcomShare(username: "u", password: "p", server: .unitedStates))
        world.answer(200, Self.account)
        world.answer(200, Self.session)
        world.answer(200, Self.values([(120, -60, #""Flat""#)]))
        world.passToDeadline()
        world.answer(500, #"{"Code":"SessionIdNotFound","Message":"Session ID not found","SubCode":null,"TypeName":"FaultException"}"#)
        #expect(world.path == "/ShareWebServices/Services/General/LoginPublisherAccountById", "the account id is kept")
        world.answer(200, "\"c1b2c3d4-0000-4000-8000-00000000abcd\"")
        #expect(world.query["sessionId"] == "c1b2c3d4-0000-4000-8000-00000000abcd")
        #expect(world.query["minutes"] == "6", "what was missed since the newest reading")
        world.answer(200, Self.values([(121, 240, "4")]))
        #expect(world.readings.count == 2)
        #expect(world.follower.link == .reachable)
    }

    @Test func aWrongPasswordIsSaidOnceAndNotTriedAgainForHalfAnHour() {
        for answer in [(200, Self.zero), (500, #"{"Code":"AccountPasswordInvalid","Message":"Password not valid"}"#),
                       (500, #"{"Code":"SSO_InternalError","Message":"Cannot Authenticate by AccountName"}"#)] {
            var world = FollowerHarness(.dexcomShare(username: "u", password: "wrong", server: .unitedStates))
            world.answer(answer.0, answer.1)
            #expect(world.follower.link == .refused(DexcomShareFollowerService.wrongPassword))
            #expect(world.wait == .seconds(1800))
            #expect(!world.logs.contains { $0.1.contains("wrong") })
        }
    }

    @Test func aLockedAccountWaits() {
        var world = FollowerHarness(.dexcomShare(username: "u", password: "p", server: .unitedStates))
        world.answer(500, #"{"Code":"SSO_AuthenticateMaxAttemptsExceeded","Message":"..."}"#)
        #expect(world.follower.link == .refused("Dexcom Share locked the account after too many failed logins"))
        #expect(world.wait == .seconds(1800))
    }

    @Test func japanHasItsOwnServerAndApplication() {
        let world = FollowerHarness(.dexcomShare(username: "u", password: "p", server: .japan))
        #expect(world.last.url.host == "share.dexcom.jp")
        #expect(world.lastBody?["applicationId"]?.string == "d8665ade-9673-4e27-9ff6-92db4ce13d13")
    }

    @Test func anUnknownFaultIsAFailureWithItsCode() {
        var world = FollowerHarness(.dexcomShare(username: "u", password: "p", server: .unitedStates))
        world.answer(500, #"{"Code":"SomethingNew","Message":"x"}"#)
        #expect(world.follower.link == .unreachable("the server answered HTTP 500 (a server error): SomethingNew"))
        #expect(world.wait == .seconds(15))
    }

    @Test(arguments: [("Date(1764300000000)", Int64(1_764_300_000_000)), ("Date(1764300000000-0500)", 1_764_300_000_000),
                      ("Date(1764300000000+0100)", 1_764_300_000_000), ("/Date(1426292039000)/", 1_426_292_039_000), ("/Date(1)", nil), ("Date()", nil), ("1764300000000", nil),
                      ("Date(17643x)", nil), ("Date(1764300000000-05)", nil)])
    func readsTheDateForm(_ text: String, _ expected: Int64?) {
        #expect(DexcomShareValuesDocument.milliseconds(text) == expected)
    }
}
