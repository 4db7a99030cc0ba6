import Testing
import Web

/// Lookup in a decoded query (parsing is in RequestTargetTests).
@Suite struct QueryTests {
    @Test func queryLooksUpTheFirstValueByExactName() {
        let query = HTTP.Query([.init(name: "count", value: "10"), .init(name: "find[date][$gte]", value: "1700000000000"),
                                .init(name: "count", value: "20")])
        #expect(query["count"] == "10")
        #expect(query.values(named: "count") == ["10", "20"])
        #expect(query["Count"] == nil)
        #expect(query["find[date][$gte]"] == "1700000000000")
        #expect(query.items(withPrefix: "find[").map(\.name) == ["find[date][$gte]"])
    }
}
