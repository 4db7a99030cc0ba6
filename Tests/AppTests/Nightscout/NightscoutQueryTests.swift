import Clocks
import Testing
@testable import App

/// Query forms, limits and refusals (docs/nightscout-api.md "Queries", "Limits").
@Suite struct NightscoutQueryTests {
    typealias F = NightscoutFixtures

    func refusal(_ path: String, _ query: [(String, String)]) -> String {
        let response = F.answer(F.get(path, query))
        #expect(response.status == 400)
        return F.body(response)
    }

    @Test(arguments: [
        ([("count", "abc")], "count must be a whole number of documents"),
        ([("count", "-1")], "count must be a whole number of documents"),
        ([("count", "1e2")], "count must be a whole number of documents"),
        ([("find[sgv][$gte]", "abc")], "find[sgv] must be a whole number"),
        ([("find[date][$gte]", "yesterday")], "find[date] must be epoch milliseconds or an ISO 8601 date"),
        ([("find[sgv][$where]", "1")], "operator $where is not supported (supported: $eq $ne $gt $gte $lt $lte $exists)"),
        ([("find[$where]", "1")], "find takes a field name of letters, digits, _ and . (got $where)"),
        ([("find[sgv", "1")], "malformed query parameter find[sgv"),
        ([("find[sgv][$gte", "1")], "malformed query parameter find[sgv][$gte"),
        ([("find[sgv][$exists]", "maybe")], "find[sgv][$exists] must be true or false"),
        ([("find[device]", String(repeating: "x", count: 129))], "the value of find[device] is longer than 128 bytes"),
    ])
    func badEntryQueriesAreRefusedWithTheirReason(_ query: [(String, String)], _ reason: String) {
        #expect(refusal("/api/v1/entries.json", query) == #"{"status":400,"message":"Bad Request","description":"\#(reason)"}"#)
    }

    @Test func treatmentDatesAndPatterns() {
        #expect(refusal("/api/v1/treatments.json", [("find[created_at][$gte]", "1795327500000")])
            .contains("find[created_at] must be an ISO 8601 date"))
        #expect(refusal("/api/v1/treatments.json", [("find[notes]", "/calibration/")])
            .contains("find[notes] as a regular expression is not supported"))
        #expect(refusal("/pebble", [("count", "many")]).contains("count must be a whole number"))
    }

    @Test func tooManyConditions() {
        let query = (0...Nightscout.Query.maximumConditions).map { ("find[sgv][$gte]", "\($0)") }
        #expect(refusal("/api/v1/entries.json", query).contains("at most 16 find conditions"))
    }

    @Test func theCountIsCappedWhateverIsAsked() {
        var configuration = F.api.configuration
        configuration.maximumCount = 2
        let api = Nightscout.API(configuration: configuration)
        for query in [[("count", "5")], [("count", "0")], [("count", "999999999")]] {
            let body = F.body(F.answer(F.get("/api/v1/entries.json", query), api: api))
            #expect(body == "[\(F.entry0607),\(F.entry0605)]")
        }
        #expect(F.body(F.answer(F.get("/api/v1/treatments.json"), api: api)).split(separator: "BG Check", omittingEmptySubsequences: false).count == 3)
        #expect(F.body(F.answer(F.get("/pebble", [("count", "3")]), api: api)).split(separator: "datetime", omittingEmptySubsequences: false).count == 3)
    }

    @Test func conditionsCompareLikeMongoDB() {
        let document: [(String, JSON)] = [("sgv", .int(120)), ("delta", .double(5.4)), ("type", "sgv")]
        typealias C = Nightscout.Query.Condition
        #expect(C(field: "sgv", op: .gte, operand: .number(120)).isMet(by: document))
        #expect(C(field: "delta", op: .gt, operand: .number(5)).isMet(by: document))
        // Text never matches a number, nor a number text.
        #expect(!C(field: "sgv", op: .eq, operand: .text("120")).isMet(by: document))
        #expect(!C(field: "type", op: .gte, operand: .number(0)).isMet(by: document))
        // $ne matches a document without the field, the other comparisons do not.
        #expect(C(field: "mbg", op: .ne, operand: .number(1)).isMet(by: document))
        #expect(!C(field: "mbg", op: .lt, operand: .number(1000)).isMet(by: document))
        #expect(C(field: "mbg", op: .exists, operand: .flag(false)).isMet(by: document))
        // Text compares byte by byte: "B" < "a".
        #expect(C(field: "type", op: .gt, operand: .text("Sgv")).isMet(by: document))
    }

    @Test func aQueryWithoutADateIsHeldToFourDays() throws {
        let query = try Nightscout.Query(F.get("/api/v1/entries.json"), collection: .entries)
        #expect(query.conditions(at: F.now) == [.init(field: "date", op: .gte, operand: .number(Double(F.now.millisecondsSinceEpoch - 4 * 86_400_000)))])
        let treatments = try Nightscout.Query(F.get("/api/v1/treatments.json"), collection: .treatments)
        #expect(treatments.conditions(at: F.now) == [.init(field: "created_at", op: .gte, operand: .text("2026-11-18T06:10:00.000Z"))])
        let byID = try Nightscout.Query(F.get("/x", [("find[_id]", "c23bb46ddba6eb1b06b38674")]), collection: .entries)
        #expect(byID.conditions(at: F.now).count == 1)
    }
}
