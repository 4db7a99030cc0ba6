import Clocks
import Readings
import Testing
@testable import App

/// Every endpoint and query form against the fixture morning (`NightscoutFixtures`), body for
/// body: field names, order and values as Nightscout serves them (docs/nightscout-api.md).
@Suite struct NightscoutAPITests {
    typealias F = NightscoutFixtures

    func body(_ path: String, _ query: [(String, String)] = []) -> String {
        let response = F.answer(F.get(path, query))
        #expect(response.status == 200)
        #expect(response.contentType == "application/json; charset=utf-8")
        return F.body(response)
    }

    @Test func entriesAreNewestFirstOfEveryTypeWithinFourDays() {
        let expected = "[\(F.entry0607),\(F.entry0605),\(F.entry0600)]"
        #expect(body("/api/v1/entries.json") == expected)
        #expect(body("/api/v1/entries") == expected)
        #expect(body("/api/v1/entries/") == expected)
    }

    @Test func countLimitsAndZeroMeansAll() {
        #expect(body("/api/v1/entries.json", [("count", "2")]) == "[\(F.entry0607),\(F.entry0605)]")
        // An explicit date lifts the 4-day window; count=0 is Nightscout's "no limit".
        let all = body("/api/v1/entries.json", [("count", "0"), ("find[date][$gte]", "0")])
        #expect(all.hasPrefix("[\(F.entry0607),\(F.entry0605),\(F.entry0600),{"))
        #expect(all.contains(#""sgv":180,"date":1794895200000"#))
    }

    @Test(arguments: [
        ("$gte", ["0607", "0605"]), ("$gt", ["0607"]), ("$lte", ["0605", "0600"]), ("$lt", ["0600"]), ("$eq", ["0605"]), ("$ne", ["0607", "0600"]),
    ])
    func dateComparisons(_ op: String, _ expected: [String]) {
        let entries = ["0607": F.entry0607, "0605": F.entry0605, "0600": F.entry0600]
        let want = "[" + expected.map { entries[$0]! }.joined(separator: ",") + "]"
        // A query that names `date` gets no 4-day window: a lower bound keeps the old reading out.
        var query = [("find[date]" + "[\(op)]", "1795327500000")]
        if op == "$ne" || op == "$lte" || op == "$lt" { query.append(("find[date][$gt]", "1795000000000")) }
        #expect(body("/api/v1/entries.json", query) == want)
    }

    @Test func dateTakesISO8601AndDateStringComparesAsText() {
        #expect(body("/api/v1/entries.json", [("find[date][$gte]", "2026-11-22T07:05:00+01:00")]) == "[\(F.entry0607),\(F.entry0605)]")
        // A client that did not escape the offset's `+` sends a space.
        #expect(body("/api/v1/entries.json", [("find[date][$gte]", "2026-11-22T07:05:00 01:00")]) == "[\(F.entry0607),\(F.entry0605)]")
        // `find[dateString][$gte]=2026-11-22T06:05` is a text comparison, as in MongoDB.
        #expect(body("/api/v1/entries.json", [("find[dateString][$gte]", "2026-11-22T06:05")]) == "[\(F.entry0607),\(F.entry0605)]")
        // A condition on `dateString` lifts the 4-day window too.
        #expect(body("/api/v1/entries.json", [("find[dateString][$lt]", "2026-11-22T06:01"), ("find[dateString][$gte]", "2026-11-20")]) == "[\(F.entry0600)]")
        #expect(body("/api/v1/entries.json", [("find[dateString][$lt]", "2026-11-22T06:01")]).hasSuffix(#""sysTime":"2026-11-17T06:00:00.000Z"}]"#))
    }

    @Test func sgvAndTypeConditions() {
        #expect(body("/api/v1/entries.json", [("find[sgv][$gte]", "118")]) == "[\(F.entry0605)]")
        #expect(body("/api/v1/entries.json", [("find[sgv]", "115")]) == "[\(F.entry0600)]")
        #expect(body("/api/v1/entries.json", [("find[type]", "mbg")]) == "[\(F.entry0607)]")
        #expect(body("/api/v1/entries.json", [("find[sgv][$exists]", "false")]) == "[\(F.entry0607)]")
        #expect(body("/api/v1/entries.json", [("find[device]", "vigil-meter")]) == "[\(F.entry0607)]")
    }

    @Test func typedPathsCurrentAndIds() {
        #expect(body("/api/v1/entries/sgv.json") == "[\(F.entry0605),\(F.entry0600)]")
        // The path's type replaces a `find[type]`, as Nightscout's `prepReqModel` does.
        #expect(body("/api/v1/entries/sgv.json", [("find[type]", "mbg")]) == "[\(F.entry0605),\(F.entry0600)]")
        #expect(body("/api/v1/entries/mbg.json") == "[\(F.entry0607)]")
        #expect(body("/api/v1/entries/cal.json") == "[]")
        #expect(body("/api/v1/entries/current.json", [("count", "5"), ("find[type]", "sgv")]) == "[\(F.entry0607)]")
        #expect(body("/api/v1/entries/c23bb46ddba6eb1b06b38674.json") == "[\(F.entry0605)]")
        #expect(body("/api/v1/entries/000000000000000000000000.json") == "[]")
    }

    @Test func entriesInOtherFormatsAreRefusedAsNightscoutDoes() {
        for path in ["/api/v1/entries.csv", "/api/v1/entries/sgv.tsv", "/api/v1/entries.txt"] {
            let response = F.answer(F.get(path))
            #expect(response.status == 405)
            #expect(F.body(response) == #"{"status":405,"message":"Method Not Allowed (only json is supported)","description":"entries are served as JSON"}"#)
        }
    }

    static let meterTreatment = #"{"_id":"e4f407ef1410ab425d0b2cd2","eventType":"BG Check","created_at":"2026-11-22T06:07:00.000Z","glucose":104,"glucoseType":"Finger","units":"mg/dl","enteredBy":"vigil-meter","notes":"meal=preprandial;tester=self, calibration of dexcom","utcOffset":60}"#
    static let g4Calibration = #"{"_id":"12b557536ffb6e7e72e86721","eventType":"BG Check","created_at":"2026-11-22T06:02:00.000Z","glucose":98,"glucoseType":"Finger","units":"mg/dl","enteredBy":"vigil-g4","notes":"calibration of g4","utcOffset":60}"#

    @Test func treatmentsAreFingersticksWithTheirCalibrations() {
        #expect(body("/api/v1/treatments.json") == "[\(Self.meterTreatment),\(Self.g4Calibration)]")
        #expect(body("/api/v1/treatments") == "[\(Self.meterTreatment),\(Self.g4Calibration)]")
        #expect(body("/api/v1/treatments.json", [("count", "1")]) == "[\(Self.meterTreatment)]")
        #expect(body("/api/v1/treatments.json", [("find[created_at][$gte]", "2026-11-22T06:05:00Z")]) == "[\(Self.meterTreatment)]")
        #expect(body("/api/v1/treatments.json", [("find[created_at][$gte]", "2026-11-22")]) == "[\(Self.meterTreatment),\(Self.g4Calibration)]")
        #expect(body("/api/v1/treatments.json", [("find[eventType]", "BG Check"), ("find[glucose][$lt]", "100")]) == "[\(Self.g4Calibration)]")
    }

    @Test func deviceStatusCarriesEachBatteryAsTheUploaderBattery() {
        let meter = #"{"_id":"fceaf0bdd37661462519d2f7","device":"vigil-meter","created_at":"2026-11-22T06:07:00.000Z","uploader":{"battery":55},"utcOffset":60}"#
        let dexcom = #"{"_id":"177ddc0039a4982d8cf67929","device":"vigil-dexcom","created_at":"2026-11-22T06:05:00.000Z","uploader":{"battery":80},"utcOffset":60}"#
        #expect(body("/api/v1/devicestatus.json") == "[\(meter),\(dexcom)]")
        #expect(body("/api/v1/devicestatus/") == "[\(meter),\(dexcom)]")
        #expect(body("/api/v1/devicestatus.json", [("count", "1")]) == "[\(meter)]")
        #expect(body("/api/v1/devicestatus.json", [("find[device]", "vigil-dexcom")]) == "[\(dexcom)]")
    }

    @Test func statusSaysWhoWhenAndTheThresholds() {
        let settings = #"{"units":"mg/dl","timeFormat":24,"nightMode":false,"customTitle":"Vigil","theme":"default","language":"en","alarmUrgentHigh":true,"alarmHigh":true,"alarmLow":true,"alarmUrgentLow":true,"enable":["delta","direction","upbat"],"authDefaultRoles":"denied","thresholds":{"bgHigh":250,"bgTargetTop":180,"bgTargetBottom":70,"bgLow":55}}"#
        let head = #"{"status":"ok","name":"Vigil","version":"\#(VigilVersion.string)","serverTime":"2026-11-22T06:10:00.000Z","serverTimeEpoch":1795327800000,"apiEnabled":true,"careportalEnabled":false,"boluscalcEnabled":false,"settings":\#(settings),"extendedSettings":{},"authorized":"#
        #expect(body("/api/v1/status.json") == head + #"{"sub":"vigil-reader","permissions":["api:*:read"]},"runtimeState":"loaded"}"#)
        // Readable without a credential: the health check, which says it is not authorized.
        let open = F.answer(F.get("/api/v1/status.json", headers: []))
        #expect(open.status == 200)
        #expect(F.body(open) == head + #"null,"runtimeState":"loaded"}"#)
        #expect(F.body(F.answer(F.get("/api/v1/status.txt", headers: []))) == "STATUS OK")
        let html = F.answer(F.get("/api/v1/status.html", headers: []))
        #expect(F.body(html) == "<h1>STATUS OK</h1>" && html.contentType == "text/html; charset=utf-8")
    }

    @Test func pebbleIsTheNewestBGWithDeltaAndBattery() {
        #expect(body("/pebble") == #"{"status":[{"now":1795327800000}],"bgs":[{"sgv":"120","trend":5,"direction":"FortyFiveDown","datetime":1795327500000,"bgdelta":5,"battery":"55"}],"cals":[]}"#)
        #expect(body("/pebble", [("count", "2")]) == #"{"status":[{"now":1795327800000}],"bgs":[{"sgv":"120","trend":5,"direction":"FortyFiveDown","datetime":1795327500000,"bgdelta":5,"battery":"55"},{"sgv":"115","trend":4,"direction":"Flat","datetime":1795327200000}],"cals":[]}"#)
    }

    @Test func pebbleSpeaksMillimolesWhenAskedOrConfigured() {
        let expected = #"{"status":[{"now":1795327800000}],"bgs":[{"sgv":"6.7","trend":5,"direction":"FortyFiveDown","datetime":1795327500000,"bgdelta":"0.3","battery":"55"}],"cals":[]}"#
        #expect(body("/pebble", [("units", "mmol")]) == expected)
        var snapshot = F.snapshot
        snapshot.units = .millimolesPerLiter
        #expect(F.body(F.answer(F.get("/pebble"), snapshot: snapshot)) == expected)
        // The query's unit wins over the configured one, as in Nightscout.
        #expect(F.body(F.answer(F.get("/pebble", [("units", "mg/dl")]), snapshot: snapshot)).contains(#""sgv":"120""#))
    }

    @Test func anEmptyApplianceAnswersEmptyDocuments() {
        let empty = Nightscout.Snapshot(now: F.now)
        for path in ["/api/v1/entries.json", "/api/v1/entries/current.json", "/api/v1/treatments.json", "/api/v1/devicestatus.json"] {
            #expect(F.body(F.answer(F.get(path), snapshot: empty)) == "[]")
        }
        #expect(F.body(F.answer(F.get("/pebble"), snapshot: empty)) == #"{"status":[{"now":1795327800000}],"bgs":[],"cals":[]}"#)
    }

    @Test func headIsAnsweredAsGet() {
        var request = F.get("/api/v1/entries.json")
        request.method = "HEAD"
        #expect(F.answer(request) == F.answer(F.get("/api/v1/entries.json")))
    }
}
