import Foundation
import Testing

/// The harness's NDJSON reader must be strict: a stray log line on vigil's stdout breaks every
/// consumer of the `--json` contract, so it has to fail a test, not be skipped.
@Suite struct NDJSONTests {
    @Test func parsesOneObjectPerLineAndSkipsBlankLines() throws {
        // Shape of the `vigil run --events-json` contract (prompt for the CLI, 2026-11-22).
        let text = """
            {"event":"connected","device":"C2:11:22:33:44:55"}

            {"event":"reading","device":"C2:11:22:33:44:55","kind":"heart-rate","bpm":72,"contact":"detected","rrIntervals":[0.8125,1]}
            """
        let objects = try NDJSON.parse(text + "\n")
        #expect(objects.count == 2)
        #expect(objects[0].string("event") == "connected")
        #expect(objects[0].string("device") == "C2:11:22:33:44:55")
        #expect(objects[1].int("bpm") == 72)
        #expect(objects[1].string("contact") == "detected")
        #expect(objects[1].doubles("rrIntervals") == [0.8125, 1.0])
        #expect(objects[1].has("energyExpended") == false)
    }

    @Test(arguments: [
        ("{\"a\":1}\nnot json\n", NDJSON.ParseError.invalidJSON(line: 2, text: "not json")),
        ("[1,2]", NDJSON.ParseError.notAnObject(line: 1, text: "[1,2]")),
        ("{\"a\":1}\n\n\"text\"", NDJSON.ParseError.notAnObject(line: 3, text: "\"text\"")),
        ("{\"a\":", NDJSON.ParseError.invalidJSON(line: 1, text: "{\"a\":")),
    ])
    func rejectsLinesThatAreNotObjects(text: String, expected: NDJSON.ParseError) {
        #expect(throws: expected) { try NDJSON.parse(text) }
    }

    @Test func documentMayBePrettyPrintedButNotEmpty() throws {
        let document = try NDJSON.parseDocument("{\n  \"address\": \"C2:11:22:33:44:55\",\n  \"services\": []\n}\n")
        #expect(document.string("address") == "C2:11:22:33:44:55")
        #expect(document.objects("services")?.isEmpty == true)
        #expect(throws: NDJSON.ParseError.empty) { try NDJSON.parseDocument("  \n") }
    }

    @Test func integerAccessorRefusesFractionsAndBooleans() throws {
        let object = try NDJSON.parseObject(#"{"bpm":72.5,"ok":true,"no":false,"one":1,"zero":0,"n":-50,"big":65535}"#, line: 1)
        #expect(object.int("bpm") == nil)
        #expect(object.double("bpm") == 72.5)
        #expect(object.int("ok") == nil)
        #expect(object.bool("ok") == true)
        #expect(object.bool("no") == false)
        #expect(object.int("no") == nil)
        #expect(object.int("one") == 1)
        #expect(object.int("zero") == 0)
        #expect(object.bool("one") == nil, "the number 1 is not JSON true")
        #expect(object.double("ok") == nil)
        #expect(object.int("n") == -50)
        #expect(object.int("big") == 65535)
        #expect(object.int("missing") == nil)
    }

    @Test func ndjsonStreamParsesEachCompleteLineOnce() {
        let stream = NDJSONStream()
        #expect(stream.update(Data(#"{"a":1}"#.utf8)).isEmpty)
        #expect(stream.update(Data("{\"a\":1}\n{\"a\":".utf8)).compactMap { $0.int("a") } == [1])
        #expect(stream.update(Data("{\"a\":1}\n{\"a\":2}\nnot json\n".utf8)).compactMap { $0.int("a") } == [1, 2])
    }
}
