import Testing
@testable import App

/// The parser against documents written for these tests from the TOML v1.0.0 specification
/// (https://toml.io/en/v1.0.0): what each valid one parses to (rendered as inline TOML), and
/// for each invalid one the exact error and where it is reported.
@Suite struct TOMLParserTests {
    static let valid: [(name: String, text: String, expected: String)] = [
        ("empty document", "", "{}"),
        ("comments and blank lines only", "# one\n\n   # two\n\t\n", "{}"),
        ("integer, trailing comment, no final newline", "a = 1 # note", "{ a = 1 }"),
        ("tabs around =", "a\t=\t1\n", "{ a = 1 }"),
        ("bare keys with dash, underscore, digits", "key-1_x = true\n1234 = false\n", "{ key-1_x = true, 1234 = false }"),
        ("quoted keys", "\"a b\" = 1\n'lit.key' = 2\n\"\" = 3\n", "{ \"a b\" = 1, \"lit.key\" = 2, \"\" = 3 }"),
        ("dotted keys", "a.b.c = 1\n", "{ a = { b = { c = 1 } } }"),
        ("dotted keys with spaces and quoted part", "a . \"b.c\" = 1\n", "{ a = { \"b.c\" = 1 } }"),
        ("dotted siblings share a table", "a.b = 1\na.c = 2\n", "{ a = { b = 1, c = 2 } }"),
        ("basic string", "s = \"hello world\"\n", "{ s = \"hello world\" }"),
        ("empty strings", "s = \"\"\nt = ''\n", "{ s = \"\", t = \"\" }"),
        ("literal string keeps backslashes", "s = 'C:\\path\\x'\n", "{ s = \"C:\\\\path\\\\x\" }"),
        ("hash inside a string is not a comment", "s = \"a # b\" # c\n", "{ s = \"a # b\" }"),
        ("integers", "i = [0, +1, -1, 1_000, 0xDEAD_beef, 0o755, 0b1010, 9223372036854775807, -9223372036854775808, 0x7FFFFFFFFFFFFFFF]\n",
         "{ i = [0, 1, -1, 1000, 3735928559, 493, 10, 9223372036854775807, -9223372036854775808, 9223372036854775807] }"),
        ("floats", "f = [1.5, -0.5, 1e3, 6.626e-34, 5E+2, 1_000.000_1, 3e0_1, 0.0, -0.0, +1.25]\n",
         "{ f = [1.5, -0.5, 1000.0, 6.626e-34, 500.0, 1000.0001, 30.0, 0.0, -0.0, 1.25] }"),
        ("special floats", "f = [inf, +inf, -inf, nan, +nan, -nan]\n", "{ f = [inf, inf, -inf, nan, nan, nan] }"),
        ("booleans", "t = true\nf = false\n", "{ t = true, f = false }"),
        ("multi-line array with comments and trailing comma", "a = [ # first\n  1,\n  # between\n  2,\n]\n", "{ a = [1, 2] }"),
        ("empty arrays", "a = []\nb = [ ]\nc = [\n]\n", "{ a = [], b = [], c = [] }"),
        ("nested and mixed arrays", "a = [[1, 2], [\"x\"], true, 1.5]\n", "{ a = [[1, 2], [\"x\"], true, 1.5] }"),
        ("inline tables", "p = { x = 1, y.z = \"a\" }\ne = {}\n", "{ p = { x = 1, y = { z = \"a\" } }, e = {} }"),
        ("array of inline tables", "d = [{ a = 1 }, { a = 2 }]\n", "{ d = [{ a = 1 }, { a = 2 }] }"),
        ("tables", "[t]\na = 1\n[u.v]\nb = 2\n", "{ t = { a = 1 }, u = { v = { b = 2 } } }"),
        ("implicit table defined later", "[a.b]\nx = 1\n[a]\ny = 2\n", "{ a = { b = { x = 1 }, y = 2 } }"),
        ("whitespace inside headers", "[ a . b ]\nx = 1\n[[ c ]]\n", "{ a = { b = { x = 1 } }, c = [{}] }"),
        ("quoted header key", "[\"my table\"]\nx = 1\n", "{ \"my table\" = { x = 1 } }"),
        ("arrays of tables", "[[d]]\na = 1\n[[d]]\na = 2\n", "{ d = [{ a = 1 }, { a = 2 }] }"),
        ("sub-table of the latest array element", "[[d]]\n[d.x]\nk = 1\n[[d]]\n", "{ d = [{ x = { k = 1 } }, {}] }"),
        ("nested arrays of tables", "[[a]]\n[[a.b]]\nk = 1\n[[a.b]]\nk = 2\n", "{ a = [{ b = [{ k = 1 }, { k = 2 }] }] }"),
        ("header through a dotted-key table (spec example)", "[f]\napple.color = \"red\"\n[f.apple.texture]\nsmooth = true\n",
         "{ f = { apple = { color = \"red\", texture = { smooth = true } } } }"),
        ("CRLF line endings", "[t]\r\na = 1\r\n# c\r\nb = [\r\n 2,\r\n]\r\n", "{ t = { a = 1, b = [2] } }"),
        ("byte order mark", "\u{FEFF}a = 1\n", "{ a = 1 }"),
        ("non-ASCII in strings and comments", "s = \"❤️ é\" # café\n", "{ s = \"❤️ é\" }"),
        ("root keys before the first header", "a = 1\n[t]\nb = 2\n", "{ a = 1, t = { b = 2 } }"),
    ]

    @Test(arguments: valid)
    func parsesValidDocument(name: String, text: String, expected: String) throws {
        let table = try TOML.parse(text)
        #expect(table.description == expected, "\(name)")
    }

    @Test func basicStringEscapes() throws {
        let text = #"s = "q\" b\\ n\n t\t r\r b\b f\f e\u00E9 smile\U0001F600 nul\u0000""#
        let table = try TOML.parse(text)
        #expect(table["s"]?.string == "q\" b\\ n\n t\t r\r b\u{08} f\u{0C} e\u{E9} smile\u{1F600} nul\u{0}")
    }

    @Test func valuesKeysAndTablesRememberWhereTheyAre() throws {
        let text = """
            top = 1
            [bluetooth]
              hci = "hci0"   # indented
            list = [
              10,
              "x",
            ]
            [[device]]
            type = "heart-rate"
            """
        let table = try TOML.parse(text)
        #expect(table.entry("top")?.keyPosition == TOML.Position(line: 1, column: 1))
        #expect(table["top"]?.position == TOML.Position(line: 1, column: 7))
        let bluetooth = try #require(table["bluetooth"])
        #expect(bluetooth.position == TOML.Position(line: 2, column: 1))
        #expect(table.entry("bluetooth")?.keyPosition == TOML.Position(line: 2, column: 2))
        let section = try #require(bluetooth.table)
        #expect(section.entry("hci")?.keyPosition == TOML.Position(line: 3, column: 3))
        #expect(section["hci"]?.position == TOML.Position(line: 3, column: 9))
        let list = try #require(section["list"]?.array)
        #expect(section["list"]?.position == TOML.Position(line: 4, column: 8))
        #expect(list.map(\.position) == [TOML.Position(line: 5, column: 3), TOML.Position(line: 6, column: 3)])
        let devices = try #require(table["device"]?.array)
        #expect(devices.count == 1)
        #expect(devices[0].position == TOML.Position(line: 8, column: 1))
        #expect(devices[0].table?["type"]?.position == TOML.Position(line: 9, column: 8))
    }

    @Test func columnsCountUnicodeScalarsNotBytes() {
        // k=1 ' '=2 '='=3 ' '=4 '"'=5 'é'=6 '"'=7 ' '=8 'x'=9; é is two bytes in UTF-8.
        let errors = syntaxErrors("k = \"é\" x")
        #expect(errors.map(\.position) == [TOML.Position(line: 1, column: 9)])
    }

    typealias P = TOML.SyntaxError.Problem

    static let invalid: [(text: String, problem: P, line: Int, column: Int)] = [
        ("a = 1\na = 2", .duplicateKey(path: ["a"], firstLine: 1), 2, 1),
        ("a = \"x\"\n\"a\" = 2", .duplicateKey(path: ["a"], firstLine: 1), 2, 1),
        ("[t]\nk = 1\nk = 2", .duplicateKey(path: ["k"], firstLine: 2), 3, 1),
        ("a.b = 1\na.b = 2", .duplicateKey(path: ["a", "b"], firstLine: 1), 2, 3),
        ("[t]\n[t]", .tableRedefined(path: ["t"], firstLine: 1), 2, 2),
        ("[a]\nb.c = 1\n[a.b]", .tableRedefined(path: ["a", "b"], firstLine: 2), 3, 4),
        ("a = 1\n[a]", .notATable(path: ["a"], firstLine: 1), 2, 2),
        ("a = 1\n[a.b]", .notATable(path: ["a"], firstLine: 1), 2, 2),
        ("a.b = 1\na.b.c = 2", .notATable(path: ["a", "b"], firstLine: 1), 2, 3),
        ("d = [1]\nd.x = 1", .notATable(path: ["d"], firstLine: 1), 2, 1),
        ("d = { x = 1 }\nd = 2", .duplicateKey(path: ["d"], firstLine: 1), 2, 1),
        ("a = 1\n[[a]]", .notAnArrayOfTables(path: ["a"], firstLine: 1), 2, 3),
        ("a = [1]\n[[a]]", .notAnArrayOfTables(path: ["a"], firstLine: 1), 2, 3),
        ("[a]\n[[a]]", .notAnArrayOfTables(path: ["a"], firstLine: 1), 2, 3),
        ("[[a]]\n[a]", .tableIsArrayOfTables(path: ["a"], firstLine: 1), 2, 2),
        ("a = { b = 1 }\n[a]", .inlineTableExtended(path: ["a"], firstLine: 1), 2, 2),
        ("a = { b = 1 }\na.c = 2", .inlineTableExtended(path: ["a"], firstLine: 1), 2, 1),
        ("a = { b = { c = 1 } }\n[a.b.d]", .inlineTableExtended(path: ["a"], firstLine: 1), 2, 2),
        ("[a.b]\n[a]\nb.c = 1", .dottedKeyIntoDefinedTable(path: ["b"], firstLine: 1), 3, 1),
        ("a = { x = 1, x = 2 }", .duplicateKey(path: ["x"], firstLine: 1), 1, 14),
        ("a = \"abc", .unterminatedString, 1, 5),
        ("a = \"abc\nb = 1", .unterminatedString, 1, 5),
        ("a = 'abc", .unterminatedString, 1, 5),
        ("\"key = 1", .unterminatedString, 1, 1),
        (#"a = "\x""#, .invalidEscape("\\x"), 1, 6),
        (#"a = "\ "#, .invalidEscape("\\ "), 1, 6),
        ("a = \"\\\n\"", .invalidEscape("\\ at the end of the line"), 1, 6),
        (#"a = "\u12""#, .invalidUnicodeEscape("\\u12 (needs 4 hex digits)"), 1, 6),
        (#"a = "\uD800""#, .invalidUnicodeEscape("\\uD800 (not a Unicode scalar value)"), 1, 6),
        (#"a = "\U00110000""#, .invalidUnicodeEscape("\\U00110000 (not a Unicode scalar value)"), 1, 6),
        ("a = \"x\u{01}y\"", .controlCharacter(0x01), 1, 7),
        ("a = 'x\u{7F}'", .controlCharacter(0x7F), 1, 7),
        ("a = 1 # bell \u{07}", .controlCharacter(0x07), 1, 14),
        ("a = 1\rb = 2", .bareCarriageReturn, 1, 6),
        ("a = 1 2", .trailingGarbage(found: "\"2\""), 1, 7),
        ("a = \"x\" y", .trailingGarbage(found: "\"y\""), 1, 9),
        ("[t] x = 1", .trailingGarbage(found: "\"x\""), 1, 5),
        ("a = [1] ]", .trailingGarbage(found: "\"]\""), 1, 9),
        ("a =", .unexpected(found: "end of file", expected: "a value"), 1, 4),
        ("a = # nothing", .unexpected(found: "\"#\"", expected: "a value"), 1, 5),
        ("a", .unexpected(found: "end of file", expected: "= after the key"), 1, 2),
        ("a b = 1", .unexpected(found: "\"b\"", expected: "= after the key"), 1, 3),
        ("a. = 1", .unexpected(found: "\"=\"", expected: "a key"), 1, 4),
        ("= 1", .unexpected(found: "\"=\"", expected: "a key"), 1, 1),
        ("[]", .unexpected(found: "\"]\"", expected: "a key"), 1, 2),
        ("[a", .unexpected(found: "end of file", expected: "] to close the table header"), 1, 3),
        ("[[a]", .unexpected(found: "end of file", expected: "]] to close the table header"), 1, 5),
        ("[[a] ]", .unexpected(found: "\" \"", expected: "]] to close the table header"), 1, 5),
        ("scan = passive", .unexpected(found: "passive", expected: "a value (text must be in quotes, like \"passive\")"), 1, 8),
        ("a = tru", .unexpected(found: "tru", expected: "a value (text must be in quotes, like \"tru\")"), 1, 5),
        ("a = .5", .unexpected(found: ".5", expected: "a value"), 1, 5),
        ("a = _1", .unexpected(found: "_1", expected: "a value"), 1, 5),
        ("a = -", .unexpected(found: "-", expected: "a value"), 1, 5),
        ("a = 01", .invalidNumber("01", reason: "leading zeros are not allowed"), 1, 5),
        ("a = -0_1", .invalidNumber("-0_1", reason: "leading zeros are not allowed"), 1, 5),
        ("a = 1__0", .invalidNumber("1__0", reason: "not a valid integer"), 1, 5),
        ("a = 1_", .invalidNumber("1_", reason: "not a valid integer"), 1, 5),
        ("a = 12ab", .invalidNumber("12ab", reason: "not a valid integer"), 1, 5),
        ("a = -0x1", .invalidNumber("-0x1", reason: "a sign is not allowed on hexadecimal integers"), 1, 5),
        ("a = 0xG1", .invalidNumber("0xG1", reason: "not a valid hexadecimal integer"), 1, 5),
        ("a = 0x", .invalidNumber("0x", reason: "not a valid hexadecimal integer"), 1, 5),
        ("a = 0o8", .invalidNumber("0o8", reason: "not a valid octal integer"), 1, 5),
        ("a = 0b102", .invalidNumber("0b102", reason: "not a valid binary integer"), 1, 5),
        ("a = 0x_1", .invalidNumber("0x_1", reason: "not a valid hexadecimal integer"), 1, 5),
        ("a = 9223372036854775808", .integerOutOfRange("9223372036854775808"), 1, 5),
        ("a = -9223372036854775809", .integerOutOfRange("-9223372036854775809"), 1, 5),
        ("a = 0x8000000000000000", .integerOutOfRange("0x8000000000000000"), 1, 5),
        ("a = 1.", .invalidNumber("1.", reason: "needs digits after the decimal point"), 1, 5),
        ("a = 1._5", .invalidNumber("1._5", reason: "needs digits after the decimal point"), 1, 5),
        ("a = 1.2.3", .invalidNumber("1.2.3", reason: "more than one decimal point"), 1, 5),
        ("a = 1e", .invalidNumber("1e", reason: "needs digits in the exponent"), 1, 5),
        ("a = 1e5e5", .invalidNumber("1e5e5", reason: "more than one exponent"), 1, 5),
        ("a = 01.5", .invalidNumber("01.5", reason: "leading zeros are not allowed"), 1, 5),
        ("a = 1e400", .floatOutOfRange("1e400"), 1, 5),
        ("a = 1979-05-27", .unsupported("dates and times (write them as strings)"), 1, 5),
        ("a = 07:32:00", .unsupported("dates and times (write them as strings)"), 1, 5),
        ("a = \"\"\"x\"\"\"", .unsupported("multi-line strings (\"\"\")"), 1, 5),
        ("a = '''x'''", .unsupported("multi-line strings (''')"), 1, 5),
        ("a = [1, 2", .unterminatedArray, 1, 5),
        ("a = [1,\n 2,\n", .unterminatedArray, 1, 5),
        ("a = [1 2]", .unexpected(found: "\"2\"", expected: ", or ] in the array"), 1, 8),
        ("a = [1,,2]", .unexpected(found: "\",\"", expected: "a value"), 1, 8),
        ("a = { b = 1", .unterminatedInlineTable, 1, 5),
        ("a = { b = 1, }", .trailingCommaInInlineTable, 1, 12),
        ("a = { b = 1,\n c = 2 }", .newlineInInlineTable, 1, 13),
        ("a = {\n}", .newlineInInlineTable, 1, 6),
        ("a = { b = 1 c = 2 }", .unexpected(found: "\"c\"", expected: ", or } in the inline table"), 1, 13),
        ("a = { b }", .unexpected(found: "\"}\"", expected: "= after the key"), 1, 9),
        ("a = " + String(repeating: "[", count: 40), .unsupported("arrays and inline tables nested 32 deep"), 1, 37),
    ]

    @Test(arguments: invalid)
    func rejectsInvalidDocument(text: String, problem: P, line: Int, column: Int) {
        let errors = syntaxErrors(text)
        #expect(errors.first == TOML.SyntaxError(problem, at: TOML.Position(line: line, column: column)), "\(text.debugDescription)")
        // A one-line document has exactly one error; a construct broken across lines may
        // leave the following line to be reported too (recovery resumes at the next line).
        if !text.contains("\n") { #expect(errors.count == 1) }
    }

    @Test func recoversAtTheNextLineAndReportsEveryError() {
        let errors = syntaxErrors("a = 1 x\nb = \"\\q\"\nok = 1\nc = 3\nc = 4\n")
        #expect(errors == [
            TOML.SyntaxError(.trailingGarbage(found: "\"x\""), at: .init(line: 1, column: 7)),
            TOML.SyntaxError(.invalidEscape("\\q"), at: .init(line: 2, column: 6)),
            TOML.SyntaxError(.duplicateKey(path: ["c"], firstLine: 4), at: .init(line: 5, column: 1)),
        ])
    }

    @Test func unclosedArrayRunningIntoAStatementBlamesTheArrayAndParsesTheStatement() {
        // Line 3 is parsed again as a statement: the duplicate on line 4 proves it was kept.
        let errors = syntaxErrors("a = [1,\n  2\nb = 3\nb = 4\n")
        #expect(errors == [
            TOML.SyntaxError(.unterminatedArray, at: .init(line: 1, column: 5)),
            TOML.SyntaxError(.duplicateKey(path: ["b"], firstLine: 3), at: .init(line: 4, column: 1)),
        ])
    }

    @Test func unclosedArrayRunningIntoAHeader() {
        let errors = syntaxErrors("a = [\n  1,\n[[device]]\ntype = 1\ntype = 2\n")
        #expect(errors == [
            TOML.SyntaxError(.unterminatedArray, at: .init(line: 1, column: 5)),
            TOML.SyntaxError(.duplicateKey(path: ["type"], firstLine: 4), at: .init(line: 5, column: 1)),
        ])
    }

    @Test func unquotedTextInsideAMultiLineArrayIsNotBlamedOnTheArray() {
        let errors = syntaxErrors("a = [\n  one,\n]\n")
        #expect(errors.first == TOML.SyntaxError(
            .unexpected(found: "one", expected: "a value (text must be in quotes, like \"one\")"), at: .init(line: 2, column: 3)))
    }

    @Test func keysAfterARejectedHeaderDoNotCascade() {
        let errors = syntaxErrors("[t]\nk = 1\n[t]\nk = 2\n")
        #expect(errors == [TOML.SyntaxError(.tableRedefined(path: ["t"], firstLine: 1), at: .init(line: 3, column: 2))])
    }

    @Test func stopsAfterFiftyErrors() {
        let errors = syntaxErrors(String(repeating: "x\n", count: 80))
        #expect(errors.count == 51)
        #expect(errors.last?.problem == .tooManyErrors(50))
        #expect(errors.dropLast().allSatisfy { $0.problem == .unexpected(found: "end of line", expected: "= after the key") })
        #expect(errors[49].position == TOML.Position(line: 50, column: 2))
    }

    @Test func hostileInputNeverTraps() {
        // Unbalanced brackets and braces deep enough to overflow a naive recursive parser.
        for text in [String(repeating: "[", count: 100_000), "a = " + String(repeating: "{a=", count: 100_000),
                     "a = " + String(repeating: "[", count: 100_000), String(repeating: "\"", count: 9)] {
            #expect(!syntaxErrors(text).isEmpty)
        }
    }

    @Test func veryLongLinesParseInLinearTime() throws {
        // 20,000 elements on one line: quadratic column counting would take minutes here.
        let text = "a = [" + String(repeating: "1, ", count: 20_000) + "]\nb = x"
        let errors = syntaxErrors(text)
        #expect(errors.map(\.position) == [TOML.Position(line: 2, column: 5)])
        let table = try TOML.parse(String(text.dropLast(6)))
        #expect(table["a"]?.array?.count == 20_000)
        #expect(table["a"]?.array?.last?.position == TOML.Position(line: 1, column: 6 + 3 * 19_999))
    }

    @Test func randomEditsOfARealisticFileNeverTrapAndReportInBoundsPositions() {
        // Deterministic: a SplitMix64 stream with a fixed seed, so a failure reproduces.
        var state: UInt64 = 0x5EED_C0DE
        func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        let original = Array("""
            [bluetooth]
            hci = "tcp:127.0.0.1:1234" # rig
            list = [1, 0x1F, -2.5e3, 'lit', "\\u00E9", [true], { a.b = 1 }]
            [[device]]
            type = "heart-rate"
            [device.extra]
            k = false
            """)
        let alphabet: [Character] = Array("[]{}\"'=.,#\\\n\r\t _-+0xeu9aé")
        var parsedCount = 0
        for _ in 0..<3000 {
            var chars = original
            for _ in 0..<(1 + next(3)) {
                let i = next(chars.count + 1)
                switch next(3) {
                case 0 where i < chars.count: chars.remove(at: i)
                case 1 where i < chars.count: chars[i] = alphabet[next(alphabet.count)]
                default: chars.insert(alphabet[next(alphabet.count)], at: i)
                }
            }
            let text = String(chars)
            let shown = text.debugDescription
            // Count line feeds as bytes: to Swift, "\r\n" is one Character, not a "\n".
            let lineCount = text.utf8.filter { $0 == UInt8(ascii: "\n") }.count + 1
            let errors = syntaxErrors(text)
            if errors.isEmpty { parsedCount += 1 }
            for error in errors {
                #expect((1...lineCount).contains(error.position.line) && error.position.column >= 1, "\(shown)")
            }
        }
        // Some edits (inside comments and strings) leave the file valid; most do not.
        #expect(parsedCount > 0 && parsedCount < 3000)
    }
}

/// The syntax errors `TOML.parse` reports for `text` (empty if it parsed).
func syntaxErrors(_ text: String) -> [TOML.SyntaxError] {
    do {
        _ = try TOML.parse(text)
        return []
    } catch {
        return error.errors
    }
}
