/// A subset of TOML v1.0.0 (https://toml.io/en/v1.0.0), enough for `/etc/vigil/vigil.conf`.
///
/// Supported: comments; bare, quoted and dotted keys; `[table]` and `[[array.of.tables]]`;
/// basic strings with escapes and literal strings; integers (decimal with sign and underscores,
/// `0x`, `0o`, `0b`); floats (including `inf` and `nan`); booleans; arrays (multi-line, with
/// comments and a trailing comma); single-line inline tables.
/// Not supported, and rejected with a clear error rather than misread: multi-line strings and
/// dates/times. Vigil's schema needs neither, and a person editing over SSH is better served by
/// an error than by a half-implemented feature.
///
/// Parsing is sans-IO: `TOML.parse(_:)` takes the text the platform read from disk.
public enum TOML {
    /// A place in the source text, both 1-based. Columns count Unicode scalars (a tab is one),
    /// which matches what `nano` and most editors show for the ASCII a config file holds.
    public struct Position: Hashable, Comparable, Sendable, CustomStringConvertible {
        public var line: Int
        public var column: Int

        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }

        public static func < (a: Self, b: Self) -> Bool {
            (a.line, a.column) < (b.line, b.column)
        }

        public var description: String { "\(line):\(column)" }
    }

    /// The kind of a value, used in "expected a string, found an integer" messages.
    public enum ValueType: String, Hashable, Sendable, CustomStringConvertible {
        case string, integer, float, boolean, array, table

        public var description: String { rawValue }

        /// The type with its article, for sentences: "an integer", "a string".
        public var withArticle: String {
            switch self {
            case .integer, .array: "an \(rawValue)"
            default: "a \(rawValue)"
            }
        }
    }

    /// A parsed value and where it starts in the text, so the schema can report errors at the
    /// line the person has to edit.
    public struct Value: Equatable, Sendable, CustomStringConvertible {
        public enum Kind: Equatable, Sendable {
            case string(String)
            case integer(Int64)
            case float(Double)
            case boolean(Bool)
            case array([Value])
            case table(Table)
        }

        public var kind: Kind
        /// Where the value starts; for a table, where its header (or first key) is.
        public var position: Position

        public init(_ kind: Kind, at position: Position) {
            self.kind = kind
            self.position = position
        }

        public var type: ValueType {
            switch kind {
            case .string: .string
            case .integer: .integer
            case .float: .float
            case .boolean: .boolean
            case .array: .array
            case .table: .table
            }
        }

        public var string: String? { if case .string(let s) = kind { s } else { nil } }
        public var integer: Int64? { if case .integer(let i) = kind { i } else { nil } }
        public var float: Double? { if case .float(let d) = kind { d } else { nil } }
        public var boolean: Bool? { if case .boolean(let b) = kind { b } else { nil } }
        public var array: [Value]? { if case .array(let a) = kind { a } else { nil } }
        public var table: Table? { if case .table(let t) = kind { t } else { nil } }

        /// The value written back as TOML inline syntax (tables as inline tables), for log
        /// lines and for comparing parse results in tests.
        public var description: String {
            switch kind {
            case .string(let s): TOML.quoted(s)
            case .integer(let i): String(i)
            case .float(let d):
                if d.isNaN { "nan" } else if d.isInfinite { d < 0 ? "-inf" : "inf" } else { String(d) }
            case .boolean(let b): b ? "true" : "false"
            case .array(let a): "[" + a.map(\.description).joined(separator: ", ") + "]"
            case .table(let t): t.description
            }
        }
    }

    /// A table: keys in the order they were first written, each with where the key was written.
    public struct Table: Equatable, Sendable, CustomStringConvertible {
        public struct Entry: Equatable, Sendable {
            public var key: String
            /// Where the key itself was written (for "unknown key" errors).
            public var keyPosition: Position
            public var value: Value

            public init(key: String, keyPosition: Position, value: Value) {
                self.key = key
                self.keyPosition = keyPosition
                self.value = value
            }
        }

        public private(set) var entries: [Entry] = []
        private var index: [String: Int] = [:]

        public init(entries: [Entry] = []) {
            for entry in entries { self.insert(entry) }
        }

        /// Adds an entry; a key already present is replaced (the parser never does this: it
        /// reports duplicates instead).
        public mutating func insert(_ entry: Entry) {
            if let i = index[entry.key] {
                entries[i] = entry
            } else {
                index[entry.key] = entries.count
                entries.append(entry)
            }
        }

        public var keys: [String] { entries.map(\.key) }
        public var isEmpty: Bool { entries.isEmpty }

        public subscript(key: String) -> Value? { entry(key)?.value }

        public func entry(_ key: String) -> Entry? { index[key].map { entries[$0] } }

        public var description: String {
            if entries.isEmpty { return "{}" }
            return "{ " + entries.map { TOML.keyText($0.key) + " = " + $0.value.description }
                .joined(separator: ", ") + " }"
        }

        public static func == (a: Self, b: Self) -> Bool { a.entries == b.entries }
    }

    /// A key as it must be written: bare when it can be, quoted otherwise.
    public static func keyText(_ key: String) -> String {
        let bare = !key.isEmpty && key.unicodeScalars.allSatisfy(isBareKeyScalar)
        return bare ? key : quoted(key)
    }

    /// A dotted key path as it must be written, e.g. `device.name` or `a."b c"`.
    public static func pathText(_ path: [String]) -> String {
        path.map(keyText).joined(separator: ".")
    }

    /// A basic string with the escapes TOML requires (quote, backslash, control characters).
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func isBareKeyScalar(_ s: Unicode.Scalar) -> Bool {
        switch s {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
        default: false
        }
    }
}
