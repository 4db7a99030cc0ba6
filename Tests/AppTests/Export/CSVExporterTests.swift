import Clocks
import Readings
import Testing
@testable import App

/// Fixture readings shared by the exporter tests: one of every kind, on 2026-11-22 from
/// 06:05:00Z (1795327500 s, computed with Python's datetime) at one-minute steps.
enum ExportFixtures {
    static let t0 = WallClockTime(secondsSinceEpoch: 1_795_327_500)
    static func at(minutes: Int64) -> WallClockTime { t0 + .seconds(minutes * 60) }

    static let glucose = RecordedReading(device: "dexcom", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 120), trend: .fortyFiveDown),
                                         wallTime: t0, sensorStamp: SensorStamp(run: "80AB12", count: 864_300), origin: .live)
    static let glucoseNoTrend = RecordedReading(device: "libre", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 97.6), trend: nil),
                                                wallTime: at(minutes: 1), origin: .backfill)
    /// With the Measurement Context the rig's records carry (meal 1 preprandial, tester 1 self;
    /// glucose_measurement_context.xml).
    static let meter = RecordedReading(device: "meter", value: .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 104.4),
                                                                               context: MeterReadingContext(meal: .preprandial, tester: .selfTested)),
                                       wallTime: at(minutes: 2), sensorStamp: SensorStamp(run: "2026-11-22T07:07:00", count: 12))
    static let heart = RecordedReading(device: "hr1", value: .heartRate(BeatsPerMinute(72), contact: .detected), wallTime: at(minutes: 3))
    // 832 ticks = 812.5 ms, 1000 ticks = 976.5625 ms (x * 1000 / 1024, exact decimals).
    static let rr = RecordedReading(device: "hr1", value: .rrIntervals([RRInterval(ticks: 832), RRInterval(ticks: 1000)]), wallTime: at(minutes: 4))
    static let temperature = RecordedReading(device: "fridge", value: .temperature(Temperature(degreesCelsius: 4.5)), wallTime: at(minutes: 5))
    static let battery = RecordedReading(device: "dexcom", value: .battery(Percent(80)!), wallTime: at(minutes: 6))
    static let energy = RecordedReading(device: "hr1", value: .energyExpended(EnergyExpended(kilojoules: 250)), wallTime: at(minutes: 7))
    /// BTHome 0x03 `D6 1F` = 8150 × 0.01 %: exported as 81.5, never 82 (bthome.io format table).
    static let humidity = RecordedReading(device: "fridge", value: .humidity(RelativeHumidity(percent: 81.5)!), wallTime: at(minutes: 8))

    static let everyKind = [glucose, glucoseNoTrend, meter, heart, rr, temperature, battery, energy, humidity]

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

@Suite struct CSVExporterTests {
    @Test func headerNamesTheColumns() {
        #expect(ExportFixtures.text(CSVExporter(utcOffset: .zero).header()) == "device,kind,value,unit,trend,time,sensor_time,sensor_run,origin,context\r\n")
    }

    @Test(arguments: [
        (ExportFixtures.glucose, "dexcom,glucose,120,mg/dL,FortyFiveDown,2026-11-22T07:05:00+01:00,864300,80AB12,live,\r\n"),
        (ExportFixtures.glucoseNoTrend, "libre,glucose,97.6,mg/dL,,2026-11-22T07:06:00+01:00,,,backfill,\r\n"),
        (ExportFixtures.meter, "meter,meter-glucose,104.4,mg/dL,,2026-11-22T07:07:00+01:00,12,2026-11-22T07:07:00,live,meal=preprandial;tester=self\r\n"),
        (ExportFixtures.heart, "hr1,heart-rate,72,bpm,,2026-11-22T07:08:00+01:00,,,live,\r\n"),
        (ExportFixtures.rr, "hr1,rr-intervals,812.5 976.5625,ms,,2026-11-22T07:09:00+01:00,,,live,\r\n"),
        (ExportFixtures.temperature, "fridge,temperature,4.5,°C,,2026-11-22T07:10:00+01:00,,,live,\r\n"),
        (ExportFixtures.battery, "dexcom,battery,80,%,,2026-11-22T07:11:00+01:00,,,live,\r\n"),
        (ExportFixtures.energy, "hr1,energy-expended,250,kJ,,2026-11-22T07:12:00+01:00,,,live,\r\n"),
        (ExportFixtures.humidity, "fridge,humidity,81.5,%,,2026-11-22T07:13:00+01:00,,,live,\r\n"),
    ])
    func encodesEveryKind(_ reading: RecordedReading, _ line: String) {
        var exporter = CSVExporter(utcOffset: .seconds(3600))
        #expect(ExportFixtures.text(exporter.encode(reading)) == line)
    }

    @Test(arguments: [
        ("plain", "plain"), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""),
        ("two\nlines", "\"two\nlines\""), ("cr\rhere", "\"cr\rhere\""), ("", ""),
    ])
    func quotesPerRFC4180(_ field: String, _ quoted: String) {
        #expect(CSVExporter.quote(field) == quoted)
    }

    @Test func quotesAnAwkwardDeviceName() {
        var reading = ExportFixtures.battery
        reading.device = "bed, \"left\""
        var exporter = CSVExporter(utcOffset: .zero)
        #expect(ExportFixtures.text(exporter.encode(reading)) == "\"bed, \"\"left\"\"\",battery,80,%,,2026-11-22T06:11:00+00:00,,,live,\r\n")
    }

    @Test func theCachedDeviceFieldFollowsTheDevice() {
        var exporter = CSVExporter(utcOffset: .zero)
        var odd = ExportFixtures.battery
        odd.device = "a,b"
        let devices = [odd, ExportFixtures.battery, odd, ExportFixtures.heart].map {
            ExportFixtures.text(exporter.encode($0)).split(separator: ",").first.map(String.init) ?? ""
        }
        #expect(devices == ["\"a", "dexcom", "\"a", "hr1"])
    }

    @Test func wholeExportIsHeaderThenOneLinePerReading() {
        var exporter = CSVExporter(utcOffset: .zero)
        let lines = ExportFixtures.text(exporter.export(ExportFixtures.everyKind)).split(separator: "\r\n", omittingEmptySubsequences: false)
        #expect(lines.count == 1 + ExportFixtures.everyKind.count + 1)  // header, rows, empty after the last CRLF
        #expect(lines.last == "")
        #expect(lines.dropFirst().dropLast().allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 10 })
    }

    @Test func anRFC4180ReaderGetsEveryFieldBack() {
        // Awkward device names through a reader written from RFC 4180 §2 alone: each row comes
        // back as the ten fields that went in.
        var exporter = CSVExporter(utcOffset: .zero)
        let names = ["plain", "comma, inside", "quote \" inside", "line\r\nbreak", "\"", ",", "trailing space "]
        var readings: [RecordedReading] = []
        for name in names {
            var reading = ExportFixtures.glucose
            reading.device = DeviceID(name)
            readings.append(reading)
        }
        let rows = Self.parseRFC4180(Array(exporter.export(readings)))
        #expect(rows.count == names.count + 1)
        #expect(rows.first == CSVExporter.columns)
        for (row, name) in zip(rows.dropFirst(), names) {
            #expect(row == [name, "glucose", "120", "mg/dL", "FortyFiveDown", "2026-11-22T06:05:00+00:00", "864300", "80AB12", "live", ""])
        }
    }

    /// A minimal RFC 4180 reader (records end with CRLF; quoted fields may hold anything, with
    /// `""` for a quote), independent of the exporter's code.
    static func parseRFC4180(_ bytes: [UInt8]) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field: [UInt8] = []
        var i = 0, quoted = false
        while i < bytes.count {
            let b = bytes[i]
            if quoted {
                if b == 0x22 {
                    if i + 1 < bytes.count && bytes[i + 1] == 0x22 { field.append(0x22); i += 1 } else { quoted = false }
                } else {
                    field.append(b)
                }
            } else if b == 0x22 {
                quoted = true
            } else if b == 0x2C {
                row.append(String(decoding: field, as: UTF8.self)); field = []
            } else if b == 0x0D && i + 1 < bytes.count && bytes[i + 1] == 0x0A {
                row.append(String(decoding: field, as: UTF8.self)); field = []
                rows.append(row); row = []
                i += 1
            } else {
                field.append(b)
            }
            i += 1
        }
        return rows
    }
}
