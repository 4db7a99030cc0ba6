import Testing
@testable import App

/// Every syntax problem's wording, since people read these over SSH with no other help.
@Suite struct TOMLSyntaxErrorTests {
    typealias P = TOML.SyntaxError.Problem

    static let messages: [(problem: P, message: String)] = [
        (.unexpected(found: "\"b\"", expected: "= after the key"), "expected = after the key, found \"b\""),
        (.trailingGarbage(found: "\"x\""), "unexpected \"x\" after the value (put comments after #)"),
        (.duplicateKey(path: ["a", "b c"], firstLine: 3), "duplicate key \"a.\\\"b c\\\"\" (first set on line 3)"),
        (.tableRedefined(path: ["bluetooth"], firstLine: 1), "table [bluetooth] is defined twice (first on line 1)"),
        (.notATable(path: ["a"], firstLine: 2), "\"a\" already holds a value (line 2), it cannot also be a table"),
        (.notAnArrayOfTables(path: ["device"], firstLine: 4),
         "[[device]] cannot add to \"device\", which line 4 made something other than an array of tables"),
        (.tableIsArrayOfTables(path: ["device"], firstLine: 4),
         "\"device\" is an array of tables (line 4); write [[device]] to add another"),
        (.inlineTableExtended(path: ["log"], firstLine: 5), "\"log\" is an inline table (line 5) and cannot be extended"),
        (.dottedKeyIntoDefinedTable(path: ["b"], firstLine: 6),
         "dotted keys cannot add to table [b] defined on line 6; put the key under that header"),
        (.unterminatedString, "unterminated string (no closing quote on this line)"),
        (.unterminatedArray, "unterminated array (no closing ])"),
        (.unterminatedInlineTable, "unterminated inline table (no closing } on this line)"),
        (.newlineInInlineTable, "an inline table must fit on one line"),
        (.trailingCommaInInlineTable, "an inline table cannot end with a comma"),
        (.invalidEscape("\\x"), "invalid escape \\x (use \\\" \\\\ \\n \\t \\r \\b \\f \\uXXXX or \\UXXXXXXXX)"),
        (.invalidUnicodeEscape("\\uD800 (not a Unicode scalar value)"), "invalid Unicode escape \\uD800 (not a Unicode scalar value)"),
        (.controlCharacter(0x07), "control character U+0007 is not allowed here"),
        (.bareCarriageReturn, "carriage return without a line feed"),
        (.invalidNumber("01", reason: "leading zeros are not allowed"), "invalid number 01: leading zeros are not allowed"),
        (.integerOutOfRange("9223372036854775808"), "integer 9223372036854775808 does not fit in 64 bits"),
        (.floatOutOfRange("1e400"), "float 1e400 is out of range"),
        (.unsupported("dates and times (write them as strings)"), "dates and times (write them as strings) are not supported in this file"),
        (.tooManyErrors(50), "stopped after 50 errors"),
    ]

    @Test(arguments: messages)
    func message(problem: P, message: String) {
        let error = TOML.SyntaxError(problem, at: TOML.Position(line: 4, column: 2))
        #expect(error.message == message)
        #expect(error.description == "4:2: " + message)
    }

    @Test func allErrorsOneLineEach() {
        let errors = TOML.SyntaxErrors([
            TOML.SyntaxError(.unterminatedArray, at: TOML.Position(line: 1, column: 5)),
            TOML.SyntaxError(.bareCarriageReturn, at: TOML.Position(line: 2, column: 1)),
        ])
        #expect(errors.description == "1:5: unterminated array (no closing ])\n2:1: carriage return without a line feed")
    }
}
