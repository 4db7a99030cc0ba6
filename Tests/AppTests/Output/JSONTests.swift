import Testing
@testable import App

@Suite struct JSONTests {
    @Test(arguments: [
        (JSON.null, "null"), (.bool(true), "true"), (.int(-42), "-42"), (.double(1.5), "1.5"),
        (.double(72), "72"), (.double(.nan), "null"), (.string("a\"b\\c\n\u{01}"), #""a\"b\\c\n\u0001""#),
        (.array([.int(1), .string("x")]), #"[1,"x"]"#),
        (.object([("b", .int(1)), ("a", .bool(false))]), #"{"b":1,"a":false}"#),
    ])
    func renders(_ value: JSON, _ expected: String) {
        #expect(value.rendered == expected)
    }
}
