/// Value readers the `[face]` and `[alarms]` sections share with each other.
extension SchemaReader {
    /// A whole number in `range`, or nil after reporting why not.
    mutating func integer(_ key: String, in table: TOML.Table, _ section: String, range: ClosedRange<Int>) -> (Int, TOML.Value)? {
        guard let value = table[key] else { return nil }
        guard let number = value.integer else {
            fail(.wrongType(key: key, section: section, expected: "a whole number", found: value.type), at: value.position)
            return nil
        }
        guard let int = Int(exactly: number), range.contains(int) else {
            fail(.invalidValue(key: key, section: section,
                               reason: "\(number) is out of range: it must be \(range.lowerBound) to \(range.upperBound)"),
                 at: value.position)
            return nil
        }
        return (int, value)
    }

    mutating func boolean(_ key: String, in table: TOML.Table, _ section: String) -> Bool? {
        guard let value = table[key] else { return nil }
        guard let flag = value.boolean else {
            fail(.wrongType(key: key, section: section, expected: "a boolean (true or false)", found: value.type), at: value.position)
            return nil
        }
        return flag
    }
}
