import Alarms
import Clocks
import Readings
@testable import App

/// One morning of a Dexcom, a meter and a G4 through a bridge, as the appliance would hand it to
/// the API at 06:10 UTC with the clocks at UTC+1.
enum NightscoutFixtures {
    /// 2026-11-22T06:00:00Z and the minutes after it.
    static func at(minute: Int64, second: Int64 = 0) -> WallClockTime {
        WallClockTime(microsecondsSinceEpoch: (1_795_327_200 + minute * 60 + second) * 1_000_000)
    }

    static let now = at(minute: 10)

    static let sgv0600 = RecordedReading(device: "dexcom", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 115), trend: .flat),
                                         wallTime: at(minute: 0), sensorStamp: SensorStamp(run: "8G1234", count: 700))
    static let sgv0605 = RecordedReading(device: "dexcom", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 120.4), trend: .fortyFiveDown),
                                         wallTime: at(minute: 5), sensorStamp: SensorStamp(run: "8G1234", count: 1000))
    static let meter0607 = RecordedReading(device: "meter", value: .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 104.4),
                                                                                 context: MeterReadingContext(meal: .preprandial, tester: .selfTested)),
                                           wallTime: at(minute: 7))
    /// Five days old: outside the 4 days a query without a date gets.
    static let sgvOld = RecordedReading(device: "dexcom", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 180), trend: nil),
                                        wallTime: at(minute: -5 * 1440), sensorStamp: SensorStamp(run: "8G1234", count: 1))
    static let heart = RecordedReading(device: "hr1", value: .heartRate(BeatsPerMinute(61), contact: .detected), wallTime: at(minute: 8))

    static let snapshot = Nightscout.Snapshot(
        now: now, readings: [heart, sgv0605, meter0607, sgvOld, sgv0600],
        calibrations: [
            Calibration(device: "dexcom", glucose: GlucoseConcentration(milligramsPerDeciliter: 104), wallTime: at(minute: 7)),
            Calibration(device: "g4", glucose: GlucoseConcentration(milligramsPerDeciliter: 98), wallTime: at(minute: 2)),
        ],
        devices: [
            Nightscout.DeviceReport(device: "dexcom", battery: Percent(80)!, reportedAt: at(minute: 5)),
            Nightscout.DeviceReport(device: "meter", battery: Percent(55)!, reportedAt: at(minute: 7)),
        ],
        thresholds: GlucoseThresholds(urgentLow: GlucoseConcentration(milligramsPerDeciliter: 55), low: GlucoseConcentration(milligramsPerDeciliter: 70),
                                      high: GlucoseConcentration(milligramsPerDeciliter: 180), urgentHigh: GlucoseConcentration(milligramsPerDeciliter: 250)),
        units: .milligramsPerDeciliter, utcOffset: .seconds(3600))

    /// The entries as Nightscout would serve them (ids computed independently from the rule in
    /// docs/nightscout-api.md "Ids", with Python's hashlib).
    static let entry0605 = #"{"_id":"c23bb46ddba6eb1b06b38674","type":"sgv","sgv":120,"date":1795327500000,"dateString":"2026-11-22T06:05:00.000Z","direction":"FortyFiveDown","delta":5.4,"device":"vigil-dexcom","utcOffset":60,"sysTime":"2026-11-22T06:05:00.000Z"}"#
    static let entry0600 = #"{"_id":"0669aed1b8f132fed744b094","type":"sgv","sgv":115,"date":1795327200000,"dateString":"2026-11-22T06:00:00.000Z","direction":"Flat","delta":0,"device":"vigil-dexcom","utcOffset":60,"sysTime":"2026-11-22T06:00:00.000Z"}"#
    static let entry0607 = #"{"_id":"bd63bb996bc9c13cb053fe12","type":"mbg","mbg":104,"date":1795327620000,"dateString":"2026-11-22T06:07:00.000Z","device":"vigil-meter","notes":"meal=preprandial;tester=self","utcOffset":60,"sysTime":"2026-11-22T06:07:00.000Z"}"#

    static let secret = "correct horse battery"
    /// `hashlib.sha1(b"correct horse battery").hexdigest()`.
    static let secretSHA1 = "98decc62ece399a22ed30d490ef333be7fde7385"
    static let token = "vigil-reader-0123456789abcdef"

    static let api = Nightscout.API(configuration: .init(credentials: try! Nightscout.Credentials(apiSecret: secret, token: token)))

    /// A GET of `target` (`path?name=value&…`, already decoded) with the token.
    static func get(_ path: String, _ query: [(String, String)] = [], headers: [(String, String)] = [("api-secret", secretSHA1)]) -> Nightscout.Request {
        Nightscout.Request(method: "GET", path: path, query: query.map { (name: $0.0, value: $0.1) }, headers: headers.map { (name: $0.0, value: $0.1) })
    }

    static func body(_ response: Nightscout.Response) -> String { String(decoding: response.body, as: UTF8.self) }

    static func answer(_ request: Nightscout.Request, api: Nightscout.API = api, snapshot: Nightscout.Snapshot = snapshot) -> Nightscout.Response {
        api.respond(to: request) { snapshot }
    }
}
