import Testing
@testable import App

/// The value model: types, accessors, and the inline-TOML rendering the parser tests compare.
@Suite struct TOMLTests {
    let at = TOML.Position(line: 3, column: 7)

    @Test func valueTypesAndAccessors() {
        let string = TOML.Value(.string("x"), at: at)
        #expect(string.type == .string && string.string == "x" && string.integer == nil && string.position == at)
        let integer = TOML.Value(.integer(-5), at: at)
        #expect(integer.type == .integer && integer.integer == -5 && integer.string == nil)
        let float = TOML.Value(.float(2.5), at: at)
        #expect(float.type == .float && float.float == 2.5 && float.integer == nil)
        let boolean = TOML.Value(.boolean(true), at: at)
        #expect(boolean.type == .boolean && boolean.boolean == true && boolean.float == nil)
        let array = TOML.Value(.array([integer]), at: at)
        #expect(array.type == .array && array.array == [integer] && array.boolean == nil)
        let table = TOML.Value(.table(TOML.Table(entries: [.init(key: "k", keyPosition: at, value: integer)])), at: at)
        #expect(table.type == .table && table.table?["k"] == integer && table.array == nil)
    }

    @Test(arguments: [
        (TOML.ValueType.string, "a string"), (.integer, "an integer"), (.float, "a float"),
        (.boolean, "a boolean"), (.array, "an array"), (.table, "a table"),
    ])
    func typeWithArticle(type: TOML.ValueType, expected: String) {
        #expect(type.withArticle == expected)
    }

    @Test(arguments: [
        ("plain", "\"plain\""),
        ("say \"hi\"", "\"say \\\"hi\\\"\""),
        ("C:\\dir", "\"C:\\\\dir\""),
        ("a\nb\tc\rd", "\"a\\nb\\tc\\rd\""),
        ("\u{08}\u{0C}", "\"\\b\\f\""),
        ("\u{01}\u{7F}", "\"\\u0001\\u007F\""),
        ("café ❤️", "\"café ❤️\""),
    ])
    func quoting(text: String, expected: String) {
        #expect(TOML.quoted(text) == expected)
    }

    @Test(arguments: [
        ("hci", "hci"), ("state-dir", "state-dir"), ("a_1", "a_1"), ("", "\"\""), ("a b", "\"a b\""),
        ("a.b", "\"a.b\""), ("é", "\"é\""),
    ])
    func keyText(key: String, expected: String) {
        #expect(TOML.keyText(key) == expected)
    }

    @Test func pathText() {
        #expect(TOML.pathText(["device", "x y", "z"]) == "device.\"x y\".z")
    }

    @Test func descriptionsRenderInlineTOML() {
        func v(_ kind: TOML.Value.Kind) -> TOML.Value { TOML.Value(kind, at: at) }
        #expect(v(.float(.infinity)).description == "inf")
        #expect(v(.float(-.infinity)).description == "-inf")
        #expect(v(.float(.nan)).description == "nan")
        #expect(v(.float(0.25)).description == "0.25")
        #expect(v(.boolean(false)).description == "false")
        let inner = TOML.Table(entries: [.init(key: "a b", keyPosition: at, value: v(.integer(1)))])
        let outer = TOML.Table(entries: [
            .init(key: "t", keyPosition: at, value: v(.table(inner))),
            .init(key: "list", keyPosition: at, value: v(.array([v(.string("x")), v(.table(TOML.Table()))]))),
        ])
        #expect(outer.description == "{ t = { \"a b\" = 1 }, list = [\"x\", {}] }")
    }

    @Test func tableKeepsInsertionOrderAndReplacesOnReinsert() {
        var table = TOML.Table()
        #expect(table.isEmpty)
        table.insert(.init(key: "b", keyPosition: at, value: TOML.Value(.integer(1), at: at)))
        table.insert(.init(key: "a", keyPosition: at, value: TOML.Value(.integer(2), at: at)))
        table.insert(.init(key: "b", keyPosition: at, value: TOML.Value(.integer(3), at: at)))
        #expect(table.keys == ["b", "a"])
        #expect(table["b"]?.integer == 3)
        #expect(table["missing"] == nil)
        #expect(table.entry("a")?.keyPosition == at)
    }

    @Test func positionsOrderByLineThenColumn() {
        #expect(TOML.Position(line: 1, column: 9) < TOML.Position(line: 2, column: 1))
        #expect(TOML.Position(line: 2, column: 1) < TOML.Position(line: 2, column: 2))
        #expect(TOML.Position(line: 12, column: 5).description == "12:5")
    }
}
