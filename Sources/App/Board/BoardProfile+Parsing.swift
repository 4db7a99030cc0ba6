extension BoardProfile {
    /// What errors call the file's top level ("missing required key "name" in the board file").
    static let fileSection = "the board file"

    /// Parses a board file's text (the caller reads the file: App does no I/O). Throws every
    /// problem found, line-numbered, with did-you-mean hints for misspelt keys.
    public init(parsing text: String) throws(ConfigurationErrors) {
        try self.init(reading: TOML.parseForConfiguration(text))
    }

    /// Checks a parsed board file against its schema.
    public init(reading root: TOML.Table) throws(ConfigurationErrors) {
        var reader = BoardReader()
        let profile = reader.read(root)
        if let profile, reader.errors.isEmpty {
            self = profile
        } else {
            throw ConfigurationErrors(reader.errors.sorted { $0.position < $1.position })
        }
    }
}

/// Walks a board file against its schema, collecting every error.
private struct BoardReader {
    var errors: [ConfigurationError] = []
    let section = BoardProfile.fileSection

    mutating func read(_ root: TOML.Table) -> BoardProfile? {
        for entry in root.entries where !BoardProfile.keys.contains(entry.key) {
            let hint = Spelling.closest(to: entry.key, among: BoardProfile.keys).map(ConfigurationError.Hint.didYouMean)
            fail(.unknownKey(key: entry.key, section: section, hint: hint), at: entry.keyPosition)
        }
        let name = requiredName(root)
        let model = string("model", in: root).map(\.text)
        let label = string("chip-label", in: root).flatMap { text, value -> String? in
            if text.isEmpty { fail(.invalidValue(key: "chip-label", section: section, reason: "must not be empty (leave the key out for no label)"), at: value.position) }
            return text.isEmpty ? nil : text
        }
        let names = chipNames(root)
        let buzzer = line("buzzer", in: root)
        let led = line("led", in: root)
        let button = line("button", in: root)
        let safe = safeLines(root)
        checkDistinct([("buzzer", buzzer), ("led", led), ("button", button)], in: root)
        if !safe.isEmpty {
            // A default that the same file calls unsafe is a contradiction in the profile.
            for (key, line) in [("buzzer", buzzer), ("led", led), ("button", button)] {
                if let line, !safe.contains(line.offset), let value = root[key] {
                    fail(.invalidValue(key: key, section: section,
                                       reason: "GPIO \(line.offset) is not in this board's safe-lines"),
                         at: value.position)
                }
            }
        }
        guard let name, let names else { return nil }
        return BoardProfile(
            name: name, model: model ?? name, chip: .init(label: label, candidates: names),
            buzzer: buzzer, led: led, button: button, safeLines: safe)
    }

    private mutating func requiredName(_ root: TOML.Table) -> String? {
        guard let (text, value) = string("name", in: root) else {
            if root["name"] == nil { fail(.missingKey(key: "name", section: section), at: TOML.Position(line: 1, column: 1)) }
            return nil
        }
        let allowed = !text.isEmpty && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        guard allowed else {
            fail(.invalidValue(key: "name", section: section,
                               reason: "\(TOML.quoted(text)) must be lowercase letters, digits and hyphens, like \"pi-4b\""),
                 at: value.position)
            return nil
        }
        return text
    }

    private mutating func chipNames(_ root: TOML.Table) -> [String]? {
        guard let value = root["chip-names"] else {
            fail(.missingKey(key: "chip-names", section: section), at: TOML.Position(line: 1, column: 1))
            return nil
        }
        guard let elements = value.array, !elements.isEmpty,
            case let names = elements.compactMap(\.string), names.count == elements.count,
            names.allSatisfy({ !$0.isEmpty })
        else {
            fail(.wrongType(key: "chip-names", section: section,
                            expected: "a non-empty array of chip names, like [\"gpiochip0\"]", found: value.type),
                 at: value.position)
            return nil
        }
        return names
    }

    /// `buzzer = { line = 17, pin = 11 }`
    private mutating func line(_ key: String, in root: TOML.Table) -> BoardProfile.Line? {
        guard let value = root[key] else { return nil }
        guard let table = value.table else {
            fail(.wrongType(key: key, section: section, expected: "a table like { line = 17, pin = 11 }", found: value.type),
                 at: value.position)
            return nil
        }
        for entry in table.entries where !BoardProfile.lineKeys.contains(entry.key) {
            let hint = Spelling.closest(to: entry.key, among: BoardProfile.lineKeys).map(ConfigurationError.Hint.didYouMean)
            fail(.unknownKey(key: entry.key, section: key, hint: hint), at: entry.keyPosition)
        }
        guard let lineValue = table["line"] else {
            fail(.missingKey(key: "line", section: key), at: value.position)
            return nil
        }
        let offset = integer(lineValue, key: "line", section: key, in: 0...BoardProfile.maximumLineOffset)
        let pin = table["pin"].flatMap { integer($0, key: "pin", section: key, in: 1...40) }
        return offset.map { BoardProfile.Line(offset: $0, headerPin: pin) }
    }

    private mutating func safeLines(_ root: TOML.Table) -> [Int] {
        guard let value = root["safe-lines"] else { return [] }
        guard let elements = value.array else {
            fail(.wrongType(key: "safe-lines", section: section, expected: "an array of line numbers", found: value.type),
                 at: value.position)
            return []
        }
        var lines: [Int] = []
        for element in elements {
            guard let offset = integer(element, key: "safe-lines", section: section, in: 0...BoardProfile.maximumLineOffset) else { continue }
            if lines.contains(offset) {
                fail(.invalidValue(key: "safe-lines", section: section, reason: "GPIO \(offset) is listed twice"), at: element.position)
            } else {
                lines.append(offset)
            }
        }
        return lines
    }

    private mutating func checkDistinct(_ roles: [(String, BoardProfile.Line?)], in root: TOML.Table) {
        var seen: [Int: String] = [:]
        for (key, line) in roles {
            guard let line else { continue }
            if let other = seen[line.offset], let value = root[key] {
                fail(.invalidValue(key: key, section: section, reason: "GPIO \(line.offset) is already the \(other) line"), at: value.position)
            } else {
                seen[line.offset] = key
            }
        }
    }

    private mutating func string(_ key: String, in table: TOML.Table) -> (text: String, value: TOML.Value)? {
        guard let value = table[key] else { return nil }
        guard let text = value.string else {
            fail(.wrongType(key: key, section: section, expected: "a string (in quotes)", found: value.type), at: value.position)
            return nil
        }
        return (text, value)
    }

    private mutating func integer(_ value: TOML.Value, key: String, section: String, in range: ClosedRange<Int>) -> Int? {
        guard let number = value.integer else {
            fail(.wrongType(key: key, section: section, expected: "a whole number", found: value.type), at: value.position)
            return nil
        }
        guard let int = Int(exactly: number), range.contains(int) else {
            fail(.invalidValue(key: key, section: section,
                               reason: "\(number) is out of range \(range.lowerBound)...\(range.upperBound)"),
                 at: value.position)
            return nil
        }
        return int
    }

    private mutating func fail(_ problem: ConfigurationError.Problem, at position: TOML.Position) {
        errors.append(ConfigurationError(problem, at: position))
    }
}
