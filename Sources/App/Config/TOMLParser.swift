extension TOML {
    /// Parses a whole document. Returns the root table, or every syntax error found: after an
    /// error the parser resumes at the next line, so one typo does not hide the next.
    public static func parse(_ text: String) throws(SyntaxErrors) -> Table {
        var parser = Parser(text)
        return try parser.parseDocument()
    }

    /// The grammatical half: statements (`key = value`, `[table]`, `[[array]]`), values, and
    /// the table tree they build.
    struct Parser {
        /// Bounds the recursion of arrays and inline tables so hostile input cannot overflow
        /// the stack (the parser must never trap on input).
        static let maximumNesting = 32
        /// A file this broken has its problem near the top; a screenful of errors is enough.
        static let maximumErrors = 50

        private var scanner: Scanner
        private let root = TableNode(.header, at: Position(line: 1, column: 1))
        private var current: TableNode
        private var errors: [SyntaxError] = []
        /// Set when an unterminated array ran into the next statement: parse that line again
        /// instead of skipping it.
        private var resumeAtLineStart = false

        init(_ text: String) {
            scanner = Scanner(text)
            current = root
        }

        mutating func parseDocument() throws(SyntaxErrors) -> Table {
            while !scanner.isAtEnd {
                do throws(SyntaxError) {
                    try parseLine()
                } catch {
                    errors.append(error)
                    if errors.count >= Self.maximumErrors {
                        errors.append(SyntaxError(.tooManyErrors(errors.count), at: scanner.position))
                        break
                    }
                    if resumeAtLineStart {
                        resumeAtLineStart = false
                        scanner.rewindToLineStart()
                    } else {
                        scanner.skipToNextLine()
                    }
                }
            }
            guard errors.isEmpty else { throw SyntaxErrors(errors) }
            return root.table
        }

        private mutating func parseLine() throws(SyntaxError) {
            scanner.skipWhitespace()
            switch scanner.current {
            case UInt8(ascii: "#"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), nil:
                break
            case UInt8(ascii: "["):
                try parseHeader()
            default:
                let key = try scanner.readKey()
                scanner.skipWhitespace()
                guard scanner.current == UInt8(ascii: "=") else {
                    throw SyntaxError(.unexpected(found: scanner.describeCurrent, expected: "= after the key"), at: scanner.position)
                }
                scanner.advance()
                scanner.skipWhitespace()
                let content = try parseValue(depth: 0)
                try current.assign(key, content)
            }
            try finishLine()
        }

        /// After a statement: optional whitespace and comment, then the end of the line.
        private mutating func finishLine() throws(SyntaxError) {
            scanner.skipWhitespace()
            try scanner.skipComment()
            if scanner.isAtEnd { return }
            guard scanner.isAtNewline || scanner.current == UInt8(ascii: "\r") else {
                throw SyntaxError(.trailingGarbage(found: scanner.describeCurrent), at: scanner.position)
            }
            try scanner.consumeNewline()
        }

        private mutating func parseHeader() throws(SyntaxError) {
            let start = scanner.position
            // Until this header is known to be good, keys go nowhere rather than into the
            // previous table, where they would cause misleading duplicate-key errors.
            current = TableNode(.header, at: start)
            scanner.advance()
            let isArray = scanner.current == UInt8(ascii: "[")
            if isArray { scanner.advance() }
            scanner.skipWhitespace()
            let key = try scanner.readKey()
            scanner.skipWhitespace()
            let closing = isArray ? "]]" : "]"
            for _ in 0..<closing.utf8.count {
                guard scanner.current == UInt8(ascii: "]") else {
                    throw SyntaxError(.unexpected(found: scanner.describeCurrent, expected: "\(closing) to close the table header"), at: scanner.position)
                }
                scanner.advance()
            }
            current = try root.openHeader(key, isArray: isArray, at: start)
        }

        // MARK: Values

        private mutating func parseValue(depth: Int) throws(SyntaxError) -> TableNode.Content {
            let start = scanner.position
            guard depth < Self.maximumNesting else {
                throw SyntaxError(.unsupported("arrays and inline tables nested \(Self.maximumNesting) deep"), at: start)
            }
            switch scanner.current {
            case UInt8(ascii: "\""):
                return .value(Value(.string(try scanner.readBasicString()), at: start))
            case UInt8(ascii: "'"):
                return .value(Value(.string(try scanner.readLiteralString()), at: start))
            case UInt8(ascii: "["):
                return .value(try parseArray(depth: depth))
            case UInt8(ascii: "{"):
                return .table(try parseInlineTable(depth: depth))
            default:
                let token = scanner.readToken()
                if token.isEmpty {
                    throw SyntaxError(.unexpected(found: scanner.describeCurrent, expected: "a value"), at: start)
                }
                return .value(Value(try Scalar.value(from: token, at: start), at: start))
            }
        }

        /// `[ v, v, ... ]`, across lines, with comments and an optional trailing comma.
        private mutating func parseArray(depth: Int) throws(SyntaxError) -> Value {
            let start = scanner.position
            scanner.advance()
            var elements: [Value] = []
            while true {
                try scanner.skipWhitespaceCommentsAndNewlines()
                if scanner.isAtEnd { throw SyntaxError(.unterminatedArray, at: start) }
                if scanner.current == UInt8(ascii: "]") { break }
                let elementLine = scanner.line
                let element: Value
                do throws(SyntaxError) {
                    element = try parseValue(depth: depth + 1).value
                } catch {
                    throw unterminated(start, ranIntoLine: elementLine, otherwise: error)
                }
                elements.append(element)
                try scanner.skipWhitespaceCommentsAndNewlines()
                if scanner.current == UInt8(ascii: ",") {
                    scanner.advance()
                } else if scanner.current == UInt8(ascii: "]") {
                    break
                } else if scanner.isAtEnd {
                    throw SyntaxError(.unterminatedArray, at: start)
                } else {
                    let error = SyntaxError(.unexpected(found: scanner.describeCurrent, expected: ", or ] in the array"), at: scanner.position)
                    throw unterminated(start, ranIntoLine: scanner.line, otherwise: error)
                }
            }
            scanner.advance()
            return Value(.array(elements), at: start)
        }

        /// An error on a later line than the array's `[`, on a line that reads like a statement
        /// (`key = ...` or `[header]`), almost always means the `]` is missing: blame the array
        /// and parse that line again as the statement it is.
        private mutating func unterminated(_ start: Position, ranIntoLine line: Int, otherwise error: SyntaxError) -> SyntaxError {
            guard line > start.line, line == scanner.line, scanner.currentLineLooksLikeStatement else { return error }
            resumeAtLineStart = true
            return SyntaxError(.unterminatedArray, at: start)
        }

        /// `{ k = v, k = v }` on one line, no trailing comma (TOML v1.0.0 "Inline Table").
        private mutating func parseInlineTable(depth: Int) throws(SyntaxError) -> TableNode {
            let start = scanner.position
            scanner.advance()
            let table = TableNode(.header, at: start)
            func skipSpace(_ scanner: inout Scanner) throws(SyntaxError) {
                scanner.skipWhitespace()
                if scanner.isAtEnd { throw SyntaxError(.unterminatedInlineTable, at: start) }
                if scanner.isAtNewline || scanner.current == UInt8(ascii: "\r") {
                    throw SyntaxError(.newlineInInlineTable, at: scanner.position)
                }
            }
            try skipSpace(&scanner)
            if scanner.current == UInt8(ascii: "}") {
                scanner.advance()
                table.freeze()
                return table
            }
            while true {
                let key = try scanner.readKey()
                try skipSpace(&scanner)
                guard scanner.current == UInt8(ascii: "=") else {
                    throw SyntaxError(.unexpected(found: scanner.describeCurrent, expected: "= after the key"), at: scanner.position)
                }
                scanner.advance()
                try skipSpace(&scanner)
                try table.assign(key, try parseValue(depth: depth + 1))
                try skipSpace(&scanner)
                if scanner.current == UInt8(ascii: "}") { break }
                guard scanner.current == UInt8(ascii: ",") else {
                    throw SyntaxError(.unexpected(found: scanner.describeCurrent, expected: ", or } in the inline table"), at: scanner.position)
                }
                let comma = scanner.position
                scanner.advance()
                try skipSpace(&scanner)
                if scanner.current == UInt8(ascii: "}") { throw SyntaxError(.trailingCommaInInlineTable, at: comma) }
            }
            scanner.advance()
            table.freeze()
            return table
        }
    }
}
