import Clocks
import Readings
import Testing
import Web
@testable import App

@Suite struct NightscoutFollowerServiceTests {
    @Test func asksForSensorGlucoseWithTheTokenInTheQuery() {
        let site = HTTP.URL(scheme: .https, host: "their-site.example", target: "/ns/")
        let world = FollowerHarness(.nightscout(site: site, token: "reader-0123456789", apiSecret: nil))
        #expect(world.last.method == .get)
        #expect(world.path == "/ns/api/v1/entries/sgv.json")
        #expect(world.query["token"] == "reader-0123456789")
        // Three hours, a reading a minute at most, two to spare.
        #expect(world.query["count"] == "182")
        #expect(world.query["find[date][$gt]"] == String((1_764_300_000 - 3 * 3600) * 1000))
        #expect(world.last.url.target.contains("find%5Bdate%5D%5B%24gt%5D="), "brackets percent-encoded (RFC 3986 §3.4)")
        #expect(world.header("api-secret") == nil)
    }

    @Test func sendsTheSecretsSHA1InTheHeader() {
        let world = FollowerHarness(.nightscout(site: HTTP.URL(scheme: .https, host: "s.example"), token: nil, apiSecret: "a-long-api-secret"))
        #expect(world.header("api-secret") == "61c60ac6338340a65d8ac71bdd49d0ce8afb76ed")
        #expect(world.query["token"] == nil)
        #expect(!world.last.url.target.contains("a-long-api-secret"))
    }

    @Test func readsEntriesAsNightscoutWritesThem() {
        let document = try! JSON.parse("""
            [{"type":"sgv","sgv":"145","date":1764300000000,"trend":3},
             {"type":"mbg","mbg":130,"date":1764299900000},
             {"type":"sgv","sgv":5,"date":1764299800000,"direction":"NOT COMPUTABLE"},
             {"sgv":88,"date":1.7642997e12,"direction":"RATE OUT OF RANGE"},
             {"type":"sgv","sgv":90}]
            """)
        guard case let .success(entries) = NightscoutEntriesDocument.decode(document) else { Issue.record("refused"); return }
        #expect(entries.glucose == [
            FollowedGlucose(measured: WallClockTime(secondsSinceEpoch: 1_764_300_000), concentration: .init(milligramsPerDeciliter: 145), trend: .fortyFiveUp),
            FollowedGlucose(measured: WallClockTime(secondsSinceEpoch: 1_764_299_700), concentration: .init(milligramsPerDeciliter: 88), trend: .rateOutOfRange),
        ])
        #expect(entries.ignored == 3, "a meter entry, an error code below 39, an entry without a date")
    }

    @Test func anOpenSiteThatAsksForATokenSaysSo() {
        var world = FollowerHarness(.nightscout(site: HTTP.URL(scheme: .https, host: "s.example"), token: nil, apiSecret: nil))
        world.answer(401, "")
        #expect(world.follower.link == .refused("the site refused the reading without a token (set token or api-secret) (HTTP 401)"))
    }
}
