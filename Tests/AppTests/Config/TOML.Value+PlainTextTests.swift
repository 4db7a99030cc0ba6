import Testing
@testable import App

@Suite struct TOMLValuePlainTextTests {
    /// Transmitter options reach drivers as plain text: a quoted TOML string loses its quotes.
    @Test(arguments: [
        ("id = \"811234\"", "811234"),
        ("id = 'raw'", "raw"),
        ("id = 42", "42"),
        ("id = -3", "-3"),
        ("id = true", "true"),
        ("id = [\"a\", \"b\"]", "a,b"),
    ])
    func plainText(_ document: String, _ expected: String) throws {
        let table = try TOML.parse(document)
        #expect(try #require(table["id"]).plainText == expected)
    }
}
