import Testing
@testable import App

/// The script against the page it runs in and the policy it runs under (docs/web.md).
@Suite struct ScriptJSTests {
    let script = Website.Assets.script

    @Test func everyElementItLooksUpIsInThePage() {
        let ids = Set(AssetScan.attribute("id", in: Website.Assets.page))
        let looked = Set(AssetScan.captures(#"\$\("([^"]+)"\)"#, in: script) + AssetScan.captures(##"querySelector(?:All)?\("#([\w-]+)"##, in: script))
        #expect(looked.count >= 15)
        #expect(looked.subtracting(ids).isEmpty, "not in the page: \(looked.subtracting(ids))")
    }

    @Test func talksOnlyToTheContractsRoutes() {
        let paths = Set(AssetScan.captures(#""(/[a-z./-]*)""#, in: script))
        #expect(paths == ["/", "/events", "/state.json", "/alarms/snooze", "/alarms/acknowledge", "/alarms/snooze-all"])
        #expect(script.contains(#"credentials: "same-origin""#))
        #expect(script.contains(#""Content-Type": "application/x-www-form-urlencoded""#))
        #expect(script.contains(#"source.addEventListener("state""#))
    }

    @Test func needsNothingThePolicyForbids() {
        for forbidden in ["eval(", "new Function", "setTimeout(\"", "setInterval(\"", "document.write", "import(", "http"] {
            #expect(!script.contains(forbidden), "\(forbidden)")
        }
    }

    @Test func knowsEveryNightscoutDirection() {
        for direction in ["DoubleUp", "SingleUp", "FortyFiveUp", "Flat", "FortyFiveDown", "SingleDown", "DoubleDown"] {
            #expect(script.contains("\(direction): [\""), "\(direction)")
        }
        // Anything else (NOT COMPUTABLE, NONE) is drawn as a question mark.
        #expect(script.contains(#"ARROWS[g.direction] || ["?", "trend unknown"]"#))
    }

    @Test func appendsTheAppliancesTextOnlyAsText() {
        // innerHTML is set in one place, the chart, from numbers and escaped labels.
        #expect(script.components(separatedBy: ".innerHTML").count == 2)
        #expect(script.contains(#"box.innerHTML = out.join("");"#))
    }
}
