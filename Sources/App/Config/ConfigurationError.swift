/// One thing wrong with the config file, at the line and column to edit.
public struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Hint: Equatable, Sendable {
        /// A near miss of a valid name.
        case didYouMean(String)
        /// A valid key written outside its section.
        case belongsIn(section: String)
    }

    public enum Problem: Equatable, Sendable {
        /// The file is not valid TOML (or uses TOML this parser does not support).
        case syntax(TOML.SyntaxError.Problem, message: String)
        /// A key the schema does not have. `section` is written as in the file, `[log]`.
        case unknownKey(key: String, section: String, hint: Hint?)
        /// A `[section]` the schema does not have.
        case unknownSection(name: String, hint: Hint?)
        case wrongType(key: String, section: String, expected: String, found: TOML.ValueType)
        case missingKey(key: String, section: String)
        /// Right type, wrong value: `reason` says what is wrong and what would be right.
        case invalidValue(key: String, section: String, reason: String)
        case unknownDeviceType(name: String, known: [String], hint: Hint?)
    }

    public var position: TOML.Position
    public var problem: Problem

    public init(_ problem: Problem, at position: TOML.Position) {
        self.problem = problem
        self.position = position
    }

    init(_ syntax: TOML.SyntaxError) {
        self.init(.syntax(syntax.problem, message: syntax.message), at: syntax.position)
    }

    /// The message without the position.
    public var message: String {
        switch problem {
        case .syntax(_, let message):
            message
        case .unknownKey(let key, let section, let hint):
            "unknown key \(TOML.quoted(key)) " + (section.isEmpty ? "at the top of the file" : "in \(section)")
                + Self.text(hint, quote: true)
        case .unknownSection(let name, let hint):
            "unknown section [\(name)]" + Self.text(hint, quote: false)
        case .wrongType(let key, let section, let expected, let found):
            "\(TOML.quoted(key))\(section.isEmpty ? "" : " in \(section)") must be \(expected), found \(found.withArticle)"
        case .missingKey(let key, let section):
            "missing required key \(TOML.quoted(key)) in \(section)"
        case .invalidValue(let key, let section, let reason):
            "invalid \(TOML.quoted(key)) in \(section): \(reason)"
        case .unknownDeviceType(let name, let known, let hint):
            "unknown device type \(TOML.quoted(name))" + Self.text(hint, quote: true) + "; known types: "
                + (known.isEmpty ? "none" : known.joined(separator: ", "))
        }
    }

    private static func text(_ hint: Hint?, quote: Bool) -> String {
        switch hint {
        case nil: ""
        case .didYouMean(let name): " (did you mean \(quote ? TOML.quoted(name) : "[\(name)]")?)"
        case .belongsIn(let section): " (it belongs in \(section))"
        }
    }

    /// `vigil.conf:12:5: unknown key "adress" in [[device]] (did you mean "address"?)`, the
    /// compiler-style line editors and people both understand.
    public func formatted(file: String) -> String { "\(file):\(position.line):\(position.column): \(message)" }

    public var description: String { "\(position): \(message)" }
}

/// Every problem found in a config file, in file order (never empty).
public struct ConfigurationErrors: Error, Equatable, Sendable, CustomStringConvertible {
    public var errors: [ConfigurationError]

    public init(_ errors: [ConfigurationError]) { self.errors = errors }

    /// One formatted line per error, in file order.
    public func formatted(file: String) -> String {
        errors.map { $0.formatted(file: file) }.joined(separator: "\n")
    }

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

extension TOML {
    /// `parse(_:)` with its syntax errors as configuration errors, which is how the
    /// configuration and board readers report a file that is not TOML at all.
    public static func parseForConfiguration(_ text: String) throws(ConfigurationErrors) -> Table {
        do throws(SyntaxErrors) {
            return try parse(text)
        } catch {
            throw ConfigurationErrors(error.errors.map(ConfigurationError.init))
        }
    }
}
