import Testing
@testable import App

@Suite struct JSONParsingTests {
    @Test(arguments: [
        ("null", JSON.null), ("true", .bool(true)), (" false ", .bool(false)), ("0", .int(0)), ("-12", .int(-12)),
        ("1.5", .double(1.5)), ("-0.25e2", .double(-25)), ("1E3", .double(1000)),
        ("9223372036854775807", .int(.max)), ("9223372036854775808", .double(9_223_372_036_854_775_808)),
        (#""a\"b\\c\/\n\t\u0041\u00e9""#, .string("a\"b\\c/\n\tAé")),
        (#""\ud83d\ude00""#, .string("😀")), ("\"日本\"", .string("日本")),
        ("[]", .array([])), ("[1, [2, []], {}]", .array([.int(1), .array([.int(2), .array([])]), .object([])])),
        (#"{"b": 1, "a": {"c": null}}"#, .object([("b", .int(1)), ("a", .object([("c", .null)]))])),
        ("\u{FEFF}[1]", .array([.int(1)])),
    ])
    func parses(_ text: String, _ expected: JSON) throws {
        #expect(try JSON.parse(text) == expected)
    }

    @Test(arguments: [
        ("", "the text ends where a value should be"), ("[1,]", "unexpected byte 0x5d where a value should be"),
        ("{\"a\" 1}", "a ':' must follow a member's name"), ("{a:1}", "an object's member must start with a quoted name"),
        ("01", "a number must not have a leading zero"), ("+1", "unexpected byte 0x2b where a value should be"),
        ("1.", "a digit must follow the decimal point"), ("1e", "a digit must follow the exponent"),
        ("-", "a digit must follow '-'"), ("1e999", "a number out of range"), ("tru", "not a literal (true, false or null)"),
        ("\"a\u{01}\"", "a control character in a string must be escaped"), ("\"abc", "a string is not closed"),
        (#""\x""#, "an unknown escape"), (#""\u12""#, #"a \u escape needs four hexadecimal digits"#),
        (#""\ud83d""#, "a high surrogate escape without its low surrogate"),
        (#""\ude00""#, "a low surrogate escape without its high surrogate"),
        ("[1] 2", "more after the value"), ("[1", "',' or ']' expected after an array's element"),
        ("{\"a\":1", "',' or '}' expected after an object's member"), ("/* c */ 1", "unexpected byte 0x2f where a value should be"),
    ])
    func refuses(_ text: String, _ reason: String) {
        #expect(throws: JSONError.self) { try JSON.parse(text) }
        do throws(JSONError) {
            _ = try JSON.parse(text)
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test func refusesBytesThatAreNotUTF8() {
        #expect(throws: JSONError("a string holds bytes that are not UTF-8", at: 1)) { try JSON.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func boundsItsDepth() throws {
        let deepest = String(repeating: "[", count: JSON.maximumDepth) + String(repeating: "]", count: JSON.maximumDepth)
        #expect(try JSON.parse(deepest).array?.count == 1)
        let tooDeep = "[" + deepest + "]"
        #expect(throws: JSONError("nested deeper than 64 levels", at: 64)) { try JSON.parse(tooDeep) }
    }

    @Test func boundsItsSize() {
        let big = [UInt8](repeating: 0x20, count: JSON.maximumSize + 1)
        #expect(throws: JSONError("longer than 4194304 bytes", at: 0)) { try JSON.parse(big) }
    }

    @Test func readsWhatItRenders() throws {
        let value = JSON.object([("s", .string("ç\"\u{01}")), ("n", .int(-7)), ("d", .double(0.1)), ("a", .array([.null, .bool(true)]))])
        #expect(try JSON.parse(value.rendered) == value)
    }

    @Test func accessors() throws {
        let value = try JSON.parse(#"{"a": [10, 2.5, "x", true, null], "a": 0, "e": 1.0e3}"#)
        #expect(value["a"]?[0]?.integer == 10)  // the first of two members named "a"
        #expect(value["a"]?[1]?.integer == nil)
        #expect(value["a"]?[1]?.number == 2.5)
        #expect(value["a"]?[2]?.string == "x")
        #expect(value["a"]?[3]?.bool == true)
        #expect(value["a"]?[4]?.isNull == true)
        #expect(value["a"]?[5] == nil)
        #expect(value["e"]?.integer == 1000)
        #expect(value["missing"] == nil)
        #expect(value[0] == nil)
        #expect(JSON.string("x")["a"] == nil)
    }
}
