import Alarms
import Readings
import Testing
@testable import App

/// `[alarms]` and `[alarms.night]`: every key, both units, bounds, order, and the night profile.
@Suite struct VigilConfigurationParsingAlarmsTests {
    func parse(_ text: String) throws(ConfigurationErrors) -> VigilConfiguration {
        try VigilConfiguration(parsing: text, knownDeviceTypes: [])
    }

    func at(_ line: Int, _ column: Int) -> TOML.Position { TOML.Position(line: line, column: column) }
    func mgdl(_ value: Double) -> GlucoseConcentration { GlucoseConcentration(milligramsPerDeciliter: value) }

    @Test func readsEveryKeyInMilligramsPerDeciliter() throws {
        let alarms = try parse("""
            [alarms]
            units = "mg/dL"
            urgent-low = 60
            urgent-low-soon = true
            urgent-low-soon-minutes = 25
            low = 80
            high = 180
            urgent-high = 260
            rising-fast = 3
            falling-fast = 2.5
            signal-loss-minutes = 30
            utc-offset = "+01:00"

            [alarms.night]
            from = "22:30"
            to = "06:45"
            low = 75
            high = 220
            """).alarms
        #expect(alarms.units == .milligramsPerDeciliter)
        let t = alarms.thresholds
        #expect(t.urgentLow == mgdl(60))
        #expect(t.urgentLowSoonHorizon == .seconds(25 * 60))
        #expect(t.low == mgdl(80) && t.high == mgdl(180) && t.urgentHigh == mgdl(260))
        #expect(t.risingFast == GlucoseRate(milligramsPerDeciliterPerMinute: 3))
        #expect(t.fallingFast == GlucoseRate(milligramsPerDeciliterPerMinute: 2.5))
        #expect(alarms.signalLossMinutes == 30)
        #expect(alarms.utcOffset == .seconds(3600))
        #expect(alarms.night == VigilConfiguration.Alarms.Night(
            from: try #require(TimeOfDay(hour: 22, minute: 30)), to: try #require(TimeOfDay(hour: 6, minute: 45)),
            low: mgdl(75), high: mgdl(220)))
    }

    @Test func millimolesPerLiterAreConvertedToMilligramsPerDeciliter() throws {
        // 18.0182 mg/dL per mmol/L (GlucoseConcentration), the factor Nightscout and xDrip use.
        let alarms = try parse("""
            [alarms]
            units = "mmol/L"
            urgent-low = 3.0
            low = 4
            high = 10.0
            urgent-high = 13.9
            falling-fast = 0.2

            [alarms.night]
            from = "23:00"
            to = "07:00"
            low = 3.5
            """).alarms
        #expect(alarms.units == .millimolesPerLiter)
        let t = alarms.thresholds
        #expect(t.urgentLow == mgdl(3.0 * 18.0182))
        #expect(t.low == mgdl(4 * 18.0182))
        #expect(t.high == mgdl(10.0 * 18.0182))
        #expect(t.urgentHigh == mgdl(13.9 * 18.0182))
        #expect(t.fallingFast == GlucoseRate(milligramsPerDeciliterPerMinute: 0.2 * 18.0182))
        #expect(t.risingFast == nil)
        #expect(alarms.night?.low == mgdl(3.5 * 18.0182))
        #expect(alarms.night?.high == mgdl(10.0 * 18.0182))
    }

    @Test func mmolBoundsAreComparedInWholeMilligrams() throws {
        // 2.2 mmol/L = 39.6 mg/dL, which a person reads as the 40 floor: accepted, and held at
        // the floor by GlucoseThresholds.
        #expect(try parse("[alarms]\nunits = \"mmol/L\"\nurgent-low = 2.2\n").alarms.thresholds.urgentLow == mgdl(40))
        #expect(try parse("[alarms]\nunits = \"mmol/L\"\nurgent-low = 5.0\nlow = 5.5\n").alarms.thresholds.urgentLow
            == mgdl(5.0 * 18.0182))
    }

    @Test func alarmsTurnOffWithFalseExceptUrgentLow() throws {
        let t = try parse("""
            [alarms]
            urgent-low-soon = false
            urgent-low-soon-minutes = 30
            low = false
            high = false
            urgent-high = false
            rising-fast = false
            falling-fast = false
            """).alarms.thresholds
        #expect(t.urgentLowSoonHorizon == nil && t.low == nil && t.high == nil && t.urgentHigh == nil)
        #expect(t.risingFast == nil && t.fallingFast == nil)
        #expect(t.urgentLow == mgdl(55))
    }

    @Test func nightKeepsTheDaysValuesItDoesNotSetAndMayTurnThemOff() throws {
        let alarms = try parse("[alarms]\nlow = 80\n[alarms.night]\nfrom = \"22:00\"\nto = \"06:00\"\nhigh = false\n").alarms
        #expect(alarms.night?.low == mgdl(80))
        #expect(alarms.night?.high == nil)
    }

    @Test(arguments: [("+00:00", 0), ("-00:00", 0), ("+05:30", 19800), ("-12:00", -43200), ("+14:00", 50400)])
    func utcOffsets(text: String, seconds: Int) throws {
        #expect(try parse("[alarms]\nutc-offset = \"\(text)\"\n").alarms.utcOffset == .seconds(seconds))
    }

    @Test func aThresholdAtTheTopBelongsInAlarms() {
        #expect(throws: ConfigurationErrors([ConfigurationError(
            .unknownKey(key: "low", section: "", hint: .belongsIn(section: "[alarms]")), at: at(1, 1))])) {
            try parse("low = 70\n")
        }
    }

    typealias Problem = ConfigurationError.Problem
    static let section = "[alarms]"
    static let night = "[alarms.night]"

    static let rejected: [(String, Problem, Int, Int)] = [
        ("[alarms]\nurgent_low = 60\n", .unknownKey(key: "urgent_low", section: section, hint: .didYouMean("urgent-low")), 2, 1),
        ("[alarms]\nunits = \"mg/dl\"\n",
         .invalidValue(key: "units", section: section, reason: "\"mg/dl\" is not one of mg/dL, mmol/L (did you mean \"mg/dL\"?)"), 2, 9),
        ("[alarms]\nurgent-low = false\n",
         .invalidValue(key: "urgent-low", section: section,
                       reason: "urgent low cannot be turned off; give a threshold from 40 mg/dL to 90 mg/dL"), 2, 14),
        ("[alarms]\nunits = \"mmol/L\"\nurgent-low = false\n",
         .invalidValue(key: "urgent-low", section: section,
                       reason: "urgent low cannot be turned off; give a threshold from 2.2 mmol/L to 5.0 mmol/L"), 3, 14),
        ("[alarms]\nurgent-low = 39\n",
         .invalidValue(key: "urgent-low", section: section, reason: "39 mg/dL is out of range: it must be 40 mg/dL to 90 mg/dL"), 2, 14),
        ("[alarms]\nurgent-low = 91\n",
         .invalidValue(key: "urgent-low", section: section, reason: "91 mg/dL is out of range: it must be 40 mg/dL to 90 mg/dL"), 2, 14),
        ("[alarms]\nunits = \"mmol/L\"\nurgent-low = 2.1\n",
         .invalidValue(key: "urgent-low", section: section, reason: "2.1 mmol/L is out of range: it must be 2.2 mmol/L to 5.0 mmol/L"), 3, 14),
        ("[alarms]\nunits = \"mmol/L\"\nurgent-low = 5.1\n",
         .invalidValue(key: "urgent-low", section: section, reason: "5.1 mmol/L is out of range: it must be 2.2 mmol/L to 5.0 mmol/L"), 3, 14),
        // A mmol/L value written in mg/dL by mistake, and the reverse.
        ("[alarms]\nunits = \"mmol/L\"\nhigh = 180\n",
         .invalidValue(key: "high", section: section, reason: "180 mmol/L is out of range: it must be 2.2 mmol/L to 22.2 mmol/L"), 3, 8),
        ("[alarms]\nlow = 3.9\n",
         .invalidValue(key: "low", section: section, reason: "3.9 mg/dL is out of range: it must be 40 mg/dL to 400 mg/dL"), 2, 7),
        ("[alarms]\nlow = \"70\"\n",
         .wrongType(key: "low", section: section, expected: "a number in mg/dL (or false to turn the alarm off)", found: .string), 2, 7),
        ("[alarms]\nhigh = true\n",
         .wrongType(key: "high", section: section, expected: "a number in mg/dL (or false to turn the alarm off)", found: .boolean), 2, 8),
        ("[alarms]\nurgent-high = inf\n",
         .invalidValue(key: "urgent-high", section: section, reason: "inf mg/dL is out of range: it must be 40 mg/dL to 400 mg/dL"), 2, 15),
        ("[alarms]\nlow = 50\n",
         .invalidValue(key: "low", section: section, reason: "low (50 mg/dL) must be above urgent-low (55 mg/dL)"), 2, 7),
        ("[alarms]\nhigh = 320\n",
         .invalidValue(key: "high", section: section, reason: "urgent-high (300 mg/dL) must be above high (320 mg/dL)"), 2, 8),
        ("[alarms]\nlow = 200\nhigh = 180\n",
         .invalidValue(key: "high", section: section, reason: "high (180 mg/dL) must be above low (200 mg/dL)"), 3, 8),
        ("[alarms]\nrising-fast = true\n",
         .wrongType(key: "rising-fast", section: section, expected: "a rate in mg/dL per minute, like 3 (or false for off)", found: .boolean), 2, 15),
        ("[alarms]\nfalling-fast = 12\n",
         .invalidValue(key: "falling-fast", section: section, reason: "12 is out of range: it must be 0.5 to 10.0 mg/dL per minute"), 2, 16),
        ("[alarms]\nunits = \"mmol/L\"\nfalling-fast = 3\n",
         .invalidValue(key: "falling-fast", section: section, reason: "3 is out of range: it must be 0.03 to 0.55 mmol/L per minute"), 3, 16),
        ("[alarms]\nurgent-low-soon = \"yes\"\n",
         .wrongType(key: "urgent-low-soon", section: section, expected: "a boolean (true or false)", found: .string), 2, 19),
        ("[alarms]\nurgent-low-soon-minutes = 40\n",
         .invalidValue(key: "urgent-low-soon-minutes", section: section, reason: "40 is out of range: it must be 10 to 30"), 2, 27),
        ("[alarms]\nsignal-loss-minutes = 31\n",
         .invalidValue(key: "signal-loss-minutes", section: section, reason: "31 is out of range: it must be 10 to 30"), 2, 23),
        ("[alarms]\nsignal-loss-minutes = 5\n",
         .invalidValue(key: "signal-loss-minutes", section: section, reason: "5 is out of range: it must be 10 to 30"), 2, 23),
        ("[alarms]\nutc-offset = \"+15:00\"\n",
         .invalidValue(key: "utc-offset", section: section, reason: "\"+15:00\" is not an offset like \"+01:00\" or \"-05:00\" (-12:00 to +14:00)"), 2, 14),
        ("[alarms]\nutc-offset = \"+1:00\"\n",
         .invalidValue(key: "utc-offset", section: section, reason: "\"+1:00\" is not an offset like \"+01:00\" or \"-05:00\" (-12:00 to +14:00)"), 2, 14),
        ("[alarms]\nutc-offset = \"01:00\"\n",
         .invalidValue(key: "utc-offset", section: section, reason: "\"01:00\" is not an offset like \"+01:00\" or \"-05:00\" (-12:00 to +14:00)"), 2, 14),
        ("[alarms]\nnight = 1\n",
         .wrongType(key: "night", section: section,
                    expected: "a table: write [alarms.night] on its own line with from, to, low and high below it", found: .integer), 2, 9),
        ("[alarms.night]\nto = \"07:00\"\n", .missingKey(key: "from", section: night), 1, 1),
        ("[alarms.night]\nfrom = \"22:00\"\nto = \"22:00\"\n",
         .invalidValue(key: "to", section: night, reason: "the night must not start and end at the same time (22:00)"), 3, 6),
        ("[alarms.night]\nfrom = \"24:00\"\nto = \"07:00\"\n",
         .invalidValue(key: "from", section: night, reason: "\"24:00\" is not a local time like \"22:00\" or \"06:30\" (00:00 to 23:59)"), 2, 8),
        ("[alarms.night]\nfrom = \"10pm\"\nto = \"07:00\"\n",
         .invalidValue(key: "from", section: night, reason: "\"10pm\" is not a local time like \"22:00\" or \"06:30\" (00:00 to 23:59)"), 2, 8),
        ("[alarms.night]\nfrom = 22\nto = \"07:00\"\n",
         .wrongType(key: "from", section: night, expected: "a string (in quotes)", found: .integer), 2, 8),
        ("[alarms.night]\nfrom = \"22:00\"\nto = \"07:00\"\nhihg = 260\n",
         .unknownKey(key: "hihg", section: night, hint: .didYouMean("high")), 4, 1),
        // The night keeps the day's urgent thresholds.
        ("[alarms.night]\nfrom = \"22:00\"\nto = \"07:00\"\nlow = 54\n",
         .invalidValue(key: "low", section: night, reason: "low (54 mg/dL) must be above urgent-low (55 mg/dL)"), 4, 7),
        ("[alarms.night]\nfrom = \"22:00\"\nto = \"07:00\"\nhigh = 300\n",
         .invalidValue(key: "high", section: night, reason: "urgent-high (300 mg/dL) must be above high (300 mg/dL)"), 4, 8),
    ]

    @Test(arguments: rejected)
    func rejects(text: String, problem: Problem, line: Int, column: Int) {
        #expect(throws: ConfigurationErrors([ConfigurationError(problem, at: at(line, column))])) { try parse(text) }
    }

    @Test func missingFromAndToAreBothReported() throws {
        let error = try #require(throws: ConfigurationErrors.self) { try parse("[alarms]\n\n[alarms.night]\nlow = 60\n") }
        #expect(error.errors.map(\.problem) == [
            .missingKey(key: "from", section: Self.night), .missingKey(key: "to", section: Self.night),
        ])
        #expect(error.errors.allSatisfy { $0.position.line == 3 })
    }
}
