import Readings
import Testing
@testable import History

@Suite struct ReadingColumnsTests {
    @Test(arguments: everyValue)
    func columnsRoundTrip(value: Reading.Value) throws {
        let columns = ReadingColumns(value)
        #expect(ReadingColumns.kind(ofCode: columns.kindCode) == value.kind)
        #expect(try columns.readingValue().get() == value)
    }

    /// Layout pinned field by field: these columns are the file format other tools read.
    @Test func layoutOfEachKind() {
        #expect(ReadingColumns(.glucose(GlucoseConcentration(milligramsPerDeciliter: 97.5), trend: .fortyFiveDown))
            == ReadingColumns(kindCode: 1, value: 97.5, trend: "FortyFiveDown", detail: nil))
        #expect(ReadingColumns(.heartRate(BeatsPerMinute(62), contact: .notDetected))
            == ReadingColumns(kindCode: 3, value: 62, trend: nil, detail: "not-detected"))
        #expect(ReadingColumns(.rrIntervals([RRInterval(ticks: 1024), RRInterval(ticks: 998)]))
            == ReadingColumns(kindCode: 4, value: 2, trend: nil, detail: "1024,998"))
        #expect(ReadingColumns(.temperature(Temperature(degreesCelsius: 4.5)))
            == ReadingColumns(kindCode: 7, value: 4.5, trend: nil, detail: nil))
        #expect(ReadingColumns(.battery(Percent(80)!)) == ReadingColumns(kindCode: 8, value: 80, trend: nil, detail: nil))
        #expect(ReadingColumns(.humidity(RelativeHumidity(percent: 81.5)!)) == ReadingColumns(kindCode: 6, value: 81.5, trend: nil, detail: nil))
        #expect(ReadingColumns(.meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 104), context: MeterReadingContext(meal: .preprandial, tester: .selfTested)))
            == ReadingColumns(kindCode: 2, value: 104, trend: nil, detail: "meal=preprandial;tester=self"))
        #expect(ReadingColumns(.meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 104), context: nil))
            == ReadingColumns(kindCode: 2, value: 104, trend: nil, detail: nil))
    }

    /// Humidity rows as a version before fractional humidity stored them (whole percents) and
    /// as it is stored now (REAL at the sensor's resolution) both read back.
    @Test func humidityReadsBackWholeAndFractional() throws {
        #expect(try ReadingColumns(kindCode: 6, value: 82, trend: nil, detail: nil).readingValue().get()
            == .humidity(RelativeHumidity(percent: 82)!))
        #expect(try ReadingColumns(kindCode: 6, value: 81.5, trend: nil, detail: nil).readingValue().get()
            == .humidity(RelativeHumidity(percent: 81.5)!))
    }

    @Test func codesAreDistinctAndStable() {
        let codes = Reading.Kind.allCases.map(ReadingColumns.code(of:))
        #expect(Set(codes).count == Reading.Kind.allCases.count)
        #expect(codes.sorted() == Array(1...8))
    }

    /// Rows a person or a newer Vigil could have written: each is refused with its reason.
    @Test(arguments: [
        (ReadingColumns(kindCode: 99, value: 1, trend: nil, detail: nil), ReadingColumns.ColumnError.unknownKind(99)),
        (ReadingColumns(kindCode: 1, value: 100, trend: "Sideways", detail: nil), .badTrend("Sideways")),
        (ReadingColumns(kindCode: 3, value: 61.5, trend: nil, detail: nil), .badValue(.heartRate, 61.5)),
        (ReadingColumns(kindCode: 3, value: 70_000, trend: nil, detail: nil), .badValue(.heartRate, 70_000)),
        (ReadingColumns(kindCode: 3, value: 60, trend: nil, detail: "maybe"), .badDetail(.heartRate, "maybe")),
        (ReadingColumns(kindCode: 4, value: 1, trend: nil, detail: nil), .badDetail(.rrIntervals, "")),
        (ReadingColumns(kindCode: 4, value: 2, trend: nil, detail: "1024,x"), .badDetail(.rrIntervals, "1024,x")),
        (ReadingColumns(kindCode: 4, value: 2, trend: nil, detail: "1024,,3"), .badDetail(.rrIntervals, "1024,,3")),
        (ReadingColumns(kindCode: 5, value: -1, trend: nil, detail: nil), .badValue(.energyExpended, -1)),
        (ReadingColumns(kindCode: 2, value: 104, trend: nil, detail: "meal=brunch"), .badDetail(.meterGlucose, "meal=brunch")),
        (ReadingColumns(kindCode: 6, value: 101, trend: nil, detail: nil), .badValue(.humidity, 101)),
        (ReadingColumns(kindCode: 6, value: -0.5, trend: nil, detail: nil), .badValue(.humidity, -0.5)),
        (ReadingColumns(kindCode: 8, value: .nan, trend: nil, detail: nil), .badValue(.battery, .nan)),
    ])
    func malformedColumnsAreRefused(columns: ReadingColumns, expected: ReadingColumns.ColumnError) {
        guard case let .failure(error) = columns.readingValue() else {
            Issue.record("accepted \(columns)")
            return
        }
        // NaN never equals itself: compare the description for that one.
        #expect(error == expected || error.description == expected.description)
    }
}
