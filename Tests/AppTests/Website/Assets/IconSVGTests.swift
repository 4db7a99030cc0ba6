import Testing
@testable import App

@Suite struct IconSVGTests {
    @Test func isOneSVGThatFetchesNothing() {
        let icon = Website.Assets.icon
        #expect(icon.hasPrefix("<svg ") && icon.hasSuffix("</svg>"))
        // The namespace is a name, not a fetch; nothing else may name a site.
        let withoutNamespace = icon.replacing(#"xmlns="http://www.w3.org/2000/svg""#, with: "")
        #expect(!withoutNamespace.contains("http") && !icon.contains("href") && !icon.contains("<script"))
    }
}
