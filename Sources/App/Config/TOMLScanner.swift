extension TOML {
    /// The lexical half of the parser: a cursor over the UTF-8 bytes that knows its line and
    /// column, and reads keys, strings and scalar tokens. Grammar: TOML v1.0.0 ABNF
    /// (https://github.com/toml-lang/toml/blob/1.0.0/toml.abnf), minus multi-line strings and
    /// dates/times.
    struct Scanner {
        let bytes: [UInt8]
        private(set) var offset = 0
        private(set) var line = 1
        private(set) var lineStart = 0
        /// Kept as the cursor moves, so a position costs nothing even on a very long line.
        private var column = 1

        init(_ text: String) {
            bytes = Array(text.utf8)
            // A UTF-8 byte order mark, as some Windows editors write, is not content.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
                offset = 3
                lineStart = 3
            }
        }

        var isAtEnd: Bool { offset >= bytes.count }
        var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }
        func peek(_ ahead: Int) -> UInt8? { offset + ahead < bytes.count ? bytes[offset + ahead] : nil }

        var position: Position { Position(line: line, column: column) }

        mutating func advance() {
            guard offset < bytes.count else { return }
            if bytes[offset] == UInt8(ascii: "\n") {
                line += 1
                lineStart = offset + 1
                column = 1
            } else if offset + 1 < bytes.count, bytes[offset + 1] & 0xC0 == 0x80 {
                // Inside a multi-byte scalar: the column moves when its last byte is passed.
            } else {
                column += 1
            }
            offset += 1
        }

        mutating func advance(by count: Int) { for _ in 0..<count { advance() } }

        /// Back to the start of the current line, so a statement that an unterminated
        /// multi-line construct ran into is parsed again on its own.
        mutating func rewindToLineStart() {
            offset = lineStart
            column = 1
        }

        /// Recovery after an error: skip past the next line feed.
        mutating func skipToNextLine() {
            let startLine = line
            while !isAtEnd && line == startLine { advance() }
        }

        /// Whether the current line starts like a statement: `[header]` or `key =`. Used only to
        /// word an error better, so a rough look is enough.
        var currentLineLooksLikeStatement: Bool {
            var i = lineStart
            while i < bytes.count, bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "\t") { i += 1 }
            guard i < bytes.count else { return false }
            if bytes[i] == UInt8(ascii: "[") {
                // `[name]` / `[[name]]`, not a nested array element such as `[1, 2]`.
                var j = i
                while j < bytes.count, bytes[j] == UInt8(ascii: "[") { j += 1 }
                return j < bytes.count && TOML.isBareKeyScalar(Unicode.Scalar(bytes[j]))
                    && !(bytes[j] >= UInt8(ascii: "0") && bytes[j] <= UInt8(ascii: "9"))
            }
            var sawKey = false
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: "=") { return sawKey }
                if TOML.isBareKeyScalar(Unicode.Scalar(b)) || b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                    sawKey = true
                } else if b != UInt8(ascii: ".") && b != UInt8(ascii: " ") && b != UInt8(ascii: "\t") {
                    return false
                }
                i += 1
            }
            return false
        }

        var isAtNewline: Bool {
            current == UInt8(ascii: "\n") || (current == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n"))
        }

        mutating func consumeNewline() throws(SyntaxError) {
            if current == UInt8(ascii: "\r") {
                guard peek(1) == UInt8(ascii: "\n") else { throw SyntaxError(.bareCarriageReturn, at: position) }
                advance()
            }
            advance()
        }

        mutating func skipWhitespace() {
            while current == UInt8(ascii: " ") || current == UInt8(ascii: "\t") { advance() }
        }

        /// A comment runs to the end of the line; TOML forbids control characters in it.
        mutating func skipComment() throws(SyntaxError) {
            guard current == UInt8(ascii: "#") else { return }
            while let b = current, !isAtNewline {
                if b == UInt8(ascii: "\r") { throw SyntaxError(.bareCarriageReturn, at: position) }
                if Self.isControl(b) { throw SyntaxError(.controlCharacter(UInt32(b)), at: position) }
                advance()
            }
        }

        /// Whitespace, comments and newlines, as allowed between array elements.
        mutating func skipWhitespaceCommentsAndNewlines() throws(SyntaxError) {
            while true {
                skipWhitespace()
                try skipComment()
                guard isAtNewline || current == UInt8(ascii: "\r") else { return }
                try consumeNewline()
            }
        }

        /// What is at the cursor, for "expected X, found Y".
        var describeCurrent: String {
            guard let b = current else { return "end of file" }
            if isAtNewline || b == UInt8(ascii: "\r") { return "end of line" }
            if Self.isControl(b) { return "control character U+\(SyntaxError.hex4(UInt32(b)))" }
            // Show the whole scalar, however many bytes it takes.
            var end = offset + 1
            while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
            return TOML.quoted(String(decoding: bytes[offset..<end], as: UTF8.self))
        }

        static func isControl(_ b: UInt8) -> Bool { (b < 0x20 && b != UInt8(ascii: "\t")) || b == 0x7F }

        // MARK: Keys

        /// A dotted key: simple keys separated by `.`, with optional whitespace around the dots.
        mutating func readKey() throws(SyntaxError) -> [(name: String, position: Position)] {
            var parts = [try readSimpleKey()]
            while true {
                let save = (offset, column)
                skipWhitespace()
                guard current == UInt8(ascii: ".") else {
                    (offset, column) = save  // whitespace never crosses a line
                    return parts
                }
                advance()
                skipWhitespace()
                parts.append(try readSimpleKey())
            }
        }

        mutating func readSimpleKey() throws(SyntaxError) -> (name: String, position: Position) {
            let start = position
            switch current {
            case UInt8(ascii: "\""):
                return (try readBasicString(), start)
            case UInt8(ascii: "'"):
                return (try readLiteralString(), start)
            default:
                let from = offset
                while let b = current, TOML.isBareKeyScalar(Unicode.Scalar(b)) { advance() }
                guard offset > from else { throw SyntaxError(.unexpected(found: describeCurrent, expected: "a key"), at: start) }
                return (String(decoding: bytes[from..<offset], as: UTF8.self), start)
            }
        }

        // MARK: Strings

        /// A basic string `"..."` with escapes (TOML v1.0.0 "Basic strings"). The cursor is on
        /// the opening quote.
        mutating func readBasicString() throws(SyntaxError) -> String {
            let start = position
            if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") {
                throw SyntaxError(.unsupported("multi-line strings (\"\"\")"), at: start)
            }
            advance()
            var out: [UInt8] = []
            while true {
                guard let b = current, b != UInt8(ascii: "\n"), b != UInt8(ascii: "\r") else {
                    throw SyntaxError(.unterminatedString, at: start)
                }
                switch b {
                case UInt8(ascii: "\""):
                    advance()
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    try readEscape(into: &out)
                default:
                    if Self.isControl(b) { throw SyntaxError(.controlCharacter(UInt32(b)), at: position) }
                    out.append(b)
                    advance()
                }
            }
        }

        private mutating func readEscape(into out: inout [UInt8]) throws(SyntaxError) {
            let start = position
            advance()  // the backslash
            guard let e = current, !isAtNewline, e != UInt8(ascii: "\r") else {
                throw SyntaxError(.invalidEscape("\\ at the end of the line"), at: start)
            }
            let simple: [UInt8: UInt8] = [
                UInt8(ascii: "b"): 0x08, UInt8(ascii: "t"): 0x09, UInt8(ascii: "n"): 0x0A,
                UInt8(ascii: "f"): 0x0C, UInt8(ascii: "r"): 0x0D,
                UInt8(ascii: "\""): UInt8(ascii: "\""), UInt8(ascii: "\\"): UInt8(ascii: "\\"),
            ]
            if let byte = simple[e] {
                out.append(byte)
                advance()
                return
            }
            let digits: Int
            switch e {
            case UInt8(ascii: "u"): digits = 4
            case UInt8(ascii: "U"): digits = 8
            default:
                throw SyntaxError(.invalidEscape("\\" + describeScalar(at: offset)), at: start)
            }
            advance()
            var value: UInt32 = 0
            var text = "\\" + String(UnicodeScalar(e))
            for _ in 0..<digits {
                guard let h = current, let d = Self.hexValue(h) else {
                    throw SyntaxError(.invalidUnicodeEscape(text + " (needs \(digits) hex digits)"), at: start)
                }
                text.unicodeScalars.append(Unicode.Scalar(h))
                value = value << 4 | UInt32(d)
                advance()
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw SyntaxError(.invalidUnicodeEscape(text + " (not a Unicode scalar value)"), at: start)
            }
            out.append(contentsOf: Array(String(scalar).utf8))
        }

        /// A literal string `'...'`: no escapes (TOML v1.0.0 "Literal strings").
        mutating func readLiteralString() throws(SyntaxError) -> String {
            let start = position
            if peek(1) == UInt8(ascii: "'"), peek(2) == UInt8(ascii: "'") {
                throw SyntaxError(.unsupported("multi-line strings (''')"), at: start)
            }
            advance()
            let from = offset
            while true {
                guard let b = current, b != UInt8(ascii: "\n"), b != UInt8(ascii: "\r") else {
                    throw SyntaxError(.unterminatedString, at: start)
                }
                if b == UInt8(ascii: "'") {
                    let s = String(decoding: bytes[from..<offset], as: UTF8.self)
                    advance()
                    return s
                }
                if Self.isControl(b) { throw SyntaxError(.controlCharacter(UInt32(b)), at: position) }
                advance()
            }
        }

        private func describeScalar(at i: Int) -> String {
            var end = i + 1
            while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
            return String(decoding: bytes[i..<min(end, bytes.count)], as: UTF8.self)
        }

        static func hexValue(_ b: UInt8) -> UInt8? {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
            default: nil
            }
        }

        // MARK: Scalar tokens

        /// A run of characters that can make up a number, boolean, `inf`/`nan` or a date, for
        /// `Token` to classify; empty if the cursor is on none of them.
        mutating func readToken() -> String {
            let from = offset
            while let b = current {
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"), UInt8(ascii: "+"),
                    UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"):
                    advance()
                default:
                    return String(decoding: bytes[from..<offset], as: UTF8.self)
                }
            }
            return String(decoding: bytes[from..<offset], as: UTF8.self)
        }
    }
}
