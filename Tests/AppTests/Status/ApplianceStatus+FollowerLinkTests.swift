import Testing
@testable import App

/// A follower's link in `vigil status` and on the page (docs/followers.md "Status").
@Suite struct ApplianceStatusFollowerLinkTests {
    @Test(arguments: [
        (ApplianceStatus.Link.reachingServer("Dexcom Share"), "reaching Dexcom Share", "connecting", "Dexcom Share"),
        (.following("Dexcom Share"), "following Dexcom Share (reachable)", "reachable", "Dexcom Share"),
        (.serverUnreachable("LibreLinkUp", reason: "timed out connecting (after 10 s)"), "LibreLinkUp unreachable: timed out connecting (after 10 s)",
         "unreachable", "LibreLinkUp: timed out connecting (after 10 s)"),
        (.serverRefused("Nightscout", reason: "the site refused the token (HTTP 401)"), "Nightscout refused: the site refused the token (HTTP 401)",
         "refused", "Nightscout: the site refused the token (HTTP 401)"),
    ])
    func words(_ link: ApplianceStatus.Link, _ words: String, _ word: String, _ detail: String) {
        #expect(ApplianceStatus.words(link) == words)
        #expect(Website.word(for: link) == word)
        #expect(Website.detail(for: link) == detail)
    }

    @Test func aBluetoothLinkHasNoDetail() {
        #expect(Website.detail(for: .searching) == nil)
    }
}
