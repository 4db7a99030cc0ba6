import Testing
@testable import App

/// The sign-in page (docs/web.md "Access") and the escaping of its error sentence.
@Suite struct SignInHTMLTests {
    @Test func withoutAnErrorItIsTheFormAlone() {
        let page = Website.Assets.signIn(error: nil)
        #expect(page.contains(#"<form id="sign-in" method="post" action="/login">"#))
        #expect(page.contains(#"name="token" type="password""#))
        #expect(!page.contains("sign-in-error"))
        #expect(!page.contains(Website.Assets.signInErrorMarker))
    }

    @Test func isAWholeDocumentWithThePagesStyleButNotItsScript() {
        let page = Website.Assets.signIn(error: nil)
        #expect(page.hasPrefix("<!doctype html>\n<html lang=\"en\">\n<head>\n"))
        #expect(Website.Assets.page.hasPrefix(Website.Assets.documentStart))
        #expect(page.contains(#"<link rel="stylesheet" href="/app.css">"#) && !page.contains("/app.js"))
        #expect(page.hasSuffix("</html>") && page.components(separatedBy: "<title>").count == 2)
    }

    @Test func theErrorSentenceIsShown() {
        let page = Website.Assets.signIn(error: "That token is not right.")
        #expect(page.contains(#"<p id="sign-in-error" class="error" role="alert">That token is not right.</p>"#))
        // Inside the form, before its button, where a screen reader meets it.
        let form = page.split(separator: "<form").last.map(String.init) ?? ""
        #expect(form.contains("sign-in-error") && form.range(of: "sign-in-error")!.lowerBound < form.range(of: "<button")!.lowerBound)
    }

    @Test(arguments: [
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        (#"a "quoted" & <b>"#, "a &quot;quoted&quot; &amp; &lt;b&gt;"),
        ("&amp;", "&amp;amp;"),
        ("", ""),
        ("plain ünïcode ✓", "plain ünïcode ✓"),
    ])
    func theSentenceIsEscaped(_ sentence: String, _ escaped: String) {
        let page = Website.Assets.signIn(error: sentence)
        #expect(page.contains(#"role="alert">"# + escaped + "</p>"))
        #expect(sentence.contains("<") == false || !page.contains(sentence))
    }
}
