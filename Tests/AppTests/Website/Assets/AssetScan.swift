import Testing
@testable import App

/// Reading the page's files the way a browser would care about: the values of one attribute,
/// the ids, the names a script looks up. Plain pattern matching over text the tests know.
enum AssetScan {
    /// The first capture of every match of `pattern` in `text`.
    static func captures(_ pattern: String, in text: String) -> [String] {
        guard let regex = try? Regex(pattern) else {
            Issue.record("bad pattern \(pattern)")
            return []
        }
        return text.matches(of: regex).compactMap { $0.output[1].substring.map(String.init) }
    }

    /// Every value of `attribute="..."` in the markup.
    static func attribute(_ attribute: String, in markup: String) -> [String] {
        captures(#"\s"# + attribute + #"="([^"]*)""#, in: markup)
    }

    /// Every asset the browser can be made to see, with its name for failure messages.
    static var served: [(String, String)] {
        [("page", Website.Assets.page), ("signIn", Website.Assets.signIn(error: "x")), ("script", Website.Assets.script),
         ("style", Website.Assets.style), ("icon", Website.Assets.icon)]
    }
}
