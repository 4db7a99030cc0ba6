extension TOML {
    /// One thing wrong with the text, at the place a person has to look.
    public struct SyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
        public enum Problem: Equatable, Sendable {
            /// Something other than what the grammar allows here, e.g. a key where `=` belongs.
            case unexpected(found: String, expected: String)
            /// Text after a complete statement on the same line: `hci = "hci0" x`.
            case trailingGarbage(found: String)
            /// A key written twice in the same table.
            case duplicateKey(path: [String], firstLine: Int)
            /// A `[table]` header for a table already defined by a header or dotted keys.
            case tableRedefined(path: [String], firstLine: Int)
            /// A header or dotted key that goes through a key holding a value, not a table.
            case notATable(path: [String], firstLine: Int)
            /// `[[x]]` where `x` is already something other than an array of tables.
            case notAnArrayOfTables(path: [String], firstLine: Int)
            /// `[x]` where `x` is an array of tables (`[[x]]` adds an element).
            case tableIsArrayOfTables(path: [String], firstLine: Int)
            /// A header or dotted key that would add to an inline table, which TOML freezes.
            case inlineTableExtended(path: [String], firstLine: Int)
            /// A dotted key adding to a table that a `[header]` defined.
            case dottedKeyIntoDefinedTable(path: [String], firstLine: Int)
            case unterminatedString
            case unterminatedArray
            case unterminatedInlineTable
            case newlineInInlineTable
            case trailingCommaInInlineTable
            /// A backslash sequence TOML does not define, e.g. `\x`.
            case invalidEscape(String)
            /// `\uXXXX` / `\UXXXXXXXX` that is malformed or names a surrogate / out-of-range value.
            case invalidUnicodeEscape(String)
            /// A control character (other than tab) in a string, comment or key.
            case controlCharacter(UInt32)
            /// A carriage return that is not part of CR LF.
            case bareCarriageReturn
            /// A malformed number, with what is wrong with it.
            case invalidNumber(String, reason: String)
            case integerOutOfRange(String)
            case floatOutOfRange(String)
            /// TOML that this subset deliberately rejects (dates, multi-line strings).
            case unsupported(String)
            /// Parsing stopped reporting after this many errors.
            case tooManyErrors(Int)
        }

        public var position: Position
        public var problem: Problem

        public init(_ problem: Problem, at position: Position) {
            self.problem = problem
            self.position = position
        }

        public var description: String { "\(position): \(message)" }

        /// The message without the position, worded for someone editing the file.
        public var message: String {
            switch problem {
            case .unexpected(let found, let expected):
                "expected \(expected), found \(found)"
            case .trailingGarbage(let found):
                "unexpected \(found) after the value (put comments after #)"
            case .duplicateKey(let path, let firstLine):
                "duplicate key \(TOML.quoted(TOML.pathText(path))) (first set on line \(firstLine))"
            case .tableRedefined(let path, let firstLine):
                "table [\(TOML.pathText(path))] is defined twice (first on line \(firstLine))"
            case .notATable(let path, let firstLine):
                "\(TOML.quoted(TOML.pathText(path))) already holds a value (line \(firstLine)), it cannot also be a table"
            case .notAnArrayOfTables(let path, let firstLine):
                "[[\(TOML.pathText(path))]] cannot add to \(TOML.quoted(TOML.pathText(path))), which line \(firstLine) made something other than an array of tables"
            case .tableIsArrayOfTables(let path, let firstLine):
                "\(TOML.quoted(TOML.pathText(path))) is an array of tables (line \(firstLine)); write [[\(TOML.pathText(path))]] to add another"
            case .inlineTableExtended(let path, let firstLine):
                "\(TOML.quoted(TOML.pathText(path))) is an inline table (line \(firstLine)) and cannot be extended"
            case .dottedKeyIntoDefinedTable(let path, let firstLine):
                "dotted keys cannot add to table [\(TOML.pathText(path))] defined on line \(firstLine); put the key under that header"
            case .unterminatedString:
                "unterminated string (no closing quote on this line)"
            case .unterminatedArray:
                "unterminated array (no closing ])"
            case .unterminatedInlineTable:
                "unterminated inline table (no closing } on this line)"
            case .newlineInInlineTable:
                "an inline table must fit on one line"
            case .trailingCommaInInlineTable:
                "an inline table cannot end with a comma"
            case .invalidEscape(let sequence):
                "invalid escape \(sequence) (use \\\" \\\\ \\n \\t \\r \\b \\f \\uXXXX or \\UXXXXXXXX)"
            case .invalidUnicodeEscape(let sequence):
                "invalid Unicode escape \(sequence)"
            case .controlCharacter(let value):
                "control character U+\(Self.hex4(value)) is not allowed here"
            case .bareCarriageReturn:
                "carriage return without a line feed"
            case .invalidNumber(let text, let reason):
                "invalid number \(text): \(reason)"
            case .integerOutOfRange(let text):
                "integer \(text) does not fit in 64 bits"
            case .floatOutOfRange(let text):
                "float \(text) is out of range"
            case .unsupported(let what):
                "\(what) are not supported in this file"
            case .tooManyErrors(let count):
                "stopped after \(count) errors"
            }
        }

        static func hex4(_ value: UInt32) -> String {
            let hex = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    /// Every syntax error found in a document (never empty). Parsing recovers at the next line,
    /// so one typo does not hide the next.
    public struct SyntaxErrors: Error, Equatable, Sendable, CustomStringConvertible {
        public var errors: [SyntaxError]

        public init(_ errors: [SyntaxError]) { self.errors = errors }

        public var description: String { errors.map(\.description).joined(separator: "\n") }
    }
}
