import Testing
@testable import App

@Suite struct SpellingTests {
    @Test(arguments: [
        ("", "", 0), ("", "abc", 3), ("abc", "", 3), ("hci", "hci", 0),
        ("adress", "address", 1),      // deletion
        ("addresss", "address", 1),    // insertion
        ("hco", "hci", 1),             // substitution
        ("lable", "label", 1),         // adjacent transposition counts once
        ("state_dir", "state-dir", 1),
        ("LEVEL", "level", 0),         // case-insensitive
        ("kitten", "sitting", 3),      // the textbook Levenshtein example
        ("ca", "abc", 3),              // optimal string alignment, not full Damerau (which gives 2)
    ])
    func distance(a: String, b: String, expected: Int) {
        #expect(Spelling.distance(a, b) == expected)
        #expect(Spelling.distance(b, a) == expected)
    }

    static let keys = ["hci", "btsnoop-log", "scan", "static-address"]

    @Test(arguments: [
        ("hco", "hci"),
        ("btsnoop_log", "btsnoop-log"),
        ("btsnooplog", "btsnoop-log"),
        ("scna", "scan"),
        ("static_adress", "static-address"),
        ("Scan", "scan"),
    ])
    func suggestsNearMisses(word: String, expected: String) {
        #expect(Spelling.closest(to: word, among: Self.keys) == expected)
    }

    @Test(arguments: ["foo", "hcix2", "level", "address", "hci"])
    func suggestsNothingForFarOffOrExactWords(word: String) {
        // "hci" itself is not a near miss of anything: an exact key needs no suggestion.
        #expect(Spelling.closest(to: word, among: Self.keys) == nil)
    }

    @Test func prefersTheCloserCandidateAndTheEarlierOnATie() {
        #expect(Spelling.closest(to: "infp", among: ["debug", "info", "notice"]) == "info")
        #expect(Spelling.closest(to: "ab", among: ["ac", "ad"]) == "ac")
        #expect(Spelling.closest(to: "scan", among: []) == nil)
    }
}
