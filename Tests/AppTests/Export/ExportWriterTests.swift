import Clocks
import Testing
@testable import App

@Suite struct ExportWriterTests {
    static func text(_ body: (inout ExportWriter) -> Void) -> String {
        var writer = ExportWriter()
        body(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test(arguments: [Int64(0), 7, -7, 10, 864_300, 1_795_327_500_000, .max, .min])
    func integersMatchTheStandardLibrary(_ value: Int64) {
        #expect(Self.text { $0.write(int: value) } == String(value))
    }

    @Test(arguments: [(Int64(0), 4, "0000"), (7, 2, "07"), (2026, 4, "2026"), (12345, 4, "12345"), (59, 2, "59"), (5, 3, "005")])
    func paddedDigits(_ value: Int64, _ width: Int, _ expected: String) {
        #expect(Self.text { $0.write(padded: value, width: width) } == expected)
    }

    @Test(arguments: [(120.0, "120"), (97.6, "97.6"), (-3, "-3"), (976.5625, "976.5625"), (1e20, "1e+20"), (.nan, ""), (.infinity, "")])
    func numbersAsTheJSONWriterWritesThem(_ value: Double, _ expected: String) {
        #expect(Self.text { $0.write(number: value) } == expected)
        if value.isFinite { #expect(JSON.double(value).rendered == expected) }
    }

    @Test(arguments: ["plain", "quote \" back \\ slash", "line\nbreak\rtab\t", "\u{01}\u{1F}", "bäckerei ✓"])
    func jsonStringsEscapeLikeTheJSONWriter(_ text: String) {
        #expect(Self.text { $0.write(jsonString: text) } == JSON.string(text).rendered)
    }
}
