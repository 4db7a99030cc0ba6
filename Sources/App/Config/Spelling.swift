/// "Did you mean" suggestions for near misses in a config file a person typed over SSH.
public enum Spelling {
    /// The optimal-string-alignment distance (Levenshtein plus adjacent transposition, so
    /// `lable` -> `label` is one edit), case-insensitive: a capital letter is not a typo worth
    /// a second guess.
    public static func distance(_ a: String, _ b: String) -> Int {
        let s = Array(a.lowercased().unicodeScalars)
        let t = Array(b.lowercased().unicodeScalars)
        if s.isEmpty { return t.count }
        if t.isEmpty { return s.count }
        // Three rolling rows: the transposition step looks two rows back.
        var previous2 = [Int](repeating: 0, count: t.count + 1)
        var previous = Array(0...t.count)
        var row = [Int](repeating: 0, count: t.count + 1)
        for i in 1...s.count {
            row[0] = i
            for j in 1...t.count {
                let cost = s[i - 1] == t[j - 1] ? 0 : 1
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, s[i - 1] == t[j - 2], s[i - 2] == t[j - 1] {
                    row[j] = min(row[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, row) = (previous, row, previous2)
        }
        return previous[t.count]
    }

    /// The candidate closest to `word`, if it is close enough to be a plausible typo: at most
    /// a third of the candidate's length in edits (and at least one), so `hco` suggests `hci`
    /// but `foo` suggests nothing. Ties go to the earlier candidate.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let d = distance(word, candidate)
            guard d <= max(1, candidate.count / 3) else { continue }
            if best == nil || d < best!.distance { best = (candidate, d) }
        }
        return best?.candidate
    }
}
