extension VigilConfiguration.Device {
    /// For a transmitter type validating the `[[device]]` keys it owns (`options`): errors for
    /// every key it does not know, with a "did you mean" among `known`, in the same words and
    /// at the same positions as the schema's own errors, in file order.
    public func unknownOptionErrors(known: [String]) -> [ConfigurationError] {
        options.compactMap { key, value -> ConfigurationError? in
            guard !known.contains(key) else { return nil }
            let hint = Spelling.closest(to: key, among: known).map(ConfigurationError.Hint.didYouMean)
            return ConfigurationError(
                .unknownKey(key: key, section: "[[device]]", hint: hint), at: optionKeyPositions[key] ?? value.position)
        }.sorted { $0.position < $1.position }
    }

    /// The string option `key`, nil if absent; an error if it is not a string.
    public func stringOption(_ key: String) throws(ConfigurationError) -> String? {
        guard let value = options[key] else { return nil }
        guard let text = value.string else { throw wrongType(key, value, expected: "a string (in quotes)") }
        return text
    }

    /// The boolean option `key`, nil if absent; an error if it is not `true` or `false`.
    public func booleanOption(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let value = options[key] else { return nil }
        guard let flag = value.boolean else { throw wrongType(key, value, expected: "a boolean (true or false)") }
        return flag
    }

    /// The integer option `key` within `range`, nil if absent. Durations are integers with
    /// the unit in the key's name (`no-data-minutes`), so the unit is never ambiguous.
    public func integerOption(_ key: String, in range: ClosedRange<Int64>) throws(ConfigurationError) -> Int64? {
        guard let value = options[key] else { return nil }
        guard let number = value.integer else { throw wrongType(key, value, expected: "an integer") }
        guard range.contains(number) else {
            throw ConfigurationError(
                .invalidValue(key: key, section: "[[device]]",
                              reason: "\(number) is out of range \(range.lowerBound)-\(range.upperBound)"),
                at: value.position)
        }
        return number
    }

    /// The option `key` as an array of strings, nil if absent. TOML allows mixed arrays; this
    /// schema does not, and the error points at the first element of the wrong type.
    public func stringArrayOption(_ key: String) throws(ConfigurationError) -> [String]? {
        guard let value = options[key] else { return nil }
        guard let elements = value.array else { throw wrongType(key, value, expected: "an array of strings") }
        var strings: [String] = []
        for element in elements {
            guard let text = element.string else {
                throw ConfigurationError(
                    .wrongType(key: key, section: "[[device]]", expected: "an array of strings (every element in quotes)",
                               found: element.type),
                    at: element.position)
            }
            strings.append(text)
        }
        return strings
    }

    private func wrongType(_ key: String, _ value: TOML.Value, expected: String) -> ConfigurationError {
        ConfigurationError(.wrongType(key: key, section: "[[device]]", expected: expected, found: value.type), at: value.position)
    }
}
