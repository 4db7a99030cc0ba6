import Testing
@testable import App

/// The page against the Content-Security-Policy it is served with (`default-src 'self'`) and
/// the element ids its script and the browser checks rely on (docs/web.md "The page's element
/// ids").
@Suite struct PageHTMLTests {
    let page = Website.Assets.page

    @Test func fetchesOnlyItsOwnFilesAndLinksOnlyItsOwnRoutes() {
        let fetched = Set(AssetScan.attribute("src", in: page) + AssetScan.captures(#"<link[^>]*href="([^"]*)""#, in: page))
        #expect(fetched == ["/app.js", "/app.css", "/icon.svg"])
        #expect(Set(AssetScan.captures(#"<a[^>]*href="([^"]*)""#, in: page)) == ["/report"])
        #expect(Set(AssetScan.attribute("action", in: page)) == ["/logout"])
    }

    @Test func namesNoOtherSiteAnywhere() {
        for (name, text) in AssetScan.served where name != "icon" {
            #expect(!text.contains("http:") && !text.contains("https:") && !text.contains("//cdn"), "\(name)")
        }
    }

    @Test func hasNoInlineScriptStyleOrHandlers() {
        for (name, markup) in [("page", page), ("signIn", Website.Assets.signIn(error: "x"))] {
            #expect(AssetScan.captures(#"<script([^>]*)>"#, in: markup).allSatisfy { $0.contains("src=") }, "\(name)")
            #expect(!markup.contains("<script>") && !markup.contains("<style"), "\(name)")
            #expect(AssetScan.captures(#"\s(on[a-z]+)="#, in: markup).isEmpty, "\(name)")
            #expect(AssetScan.attribute("style", in: markup).isEmpty, "\(name)")
            #expect(!markup.contains("javascript:"), "\(name)")
        }
        // The script tag carries no text: a browser would not run it under the policy.
        #expect(page.contains(#"<script src="/app.js"></script>"#))
    }

    @Test func idsAreUnique() {
        let ids = AssetScan.attribute("id", in: page)
        #expect(ids.count == Set(ids).count)
    }

    @Test func everyIdOfTheContractIsThere() {
        let ids = Set(AssetScan.attribute("id", in: page))
        let contract: Set = [
            "glucose-value", "glucose-arrow", "glucose-age", "glucose-unit", "stale-banner", "fault-banner",
            "offline-banner", "alarms", "chart", "chart-range", "devices", "others", "report-link", "theme-toggle",
            "snooze-all", "snooze-all-minutes", "action-error",
        ]
        #expect(contract.subtracting(ids).isEmpty, "missing: \(contract.subtracting(ids))")
        #expect(Set(AssetScan.attribute("data-hours", in: page)) == ["3", "6", "12", "24"])
    }

    @Test func theNumberIsALiveRegionAndEveryControlAButton() {
        #expect(page.contains(#"<div class="reading" aria-live="polite" aria-atomic="true">"#))
        let liveRegion = page.split(separator: "aria-live").dropFirst().first.map(String.init) ?? ""
        #expect(liveRegion.prefix(400).contains(#"id="glucose-value""#))
        #expect(AssetScan.captures(#"<button([^>]*)>"#, in: page).allSatisfy { $0.contains("type=") })
        #expect(page.contains(#"<html lang="en">"#) && page.contains(#"name="viewport""#))
    }

    @Test func banners() {
        for id in ["fault-banner", "offline-banner", "stale-banner"] {
            #expect(page.contains(#"id="\#(id)""#) && AssetScan.captures(#"<div id="\#(id)"[^>]*( hidden)>"#, in: page) == [" hidden"], "\(id)")
        }
    }
}
