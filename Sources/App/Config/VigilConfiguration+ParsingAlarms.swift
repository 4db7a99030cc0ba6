import Alarms
import Readings

extension VigilConfiguration {
    /// The `[alarms]` keys, in the order the packaged file lists them; `night` is the
    /// `[alarms.night]` table.
    public static let alarmsKeys = [
        "units", "urgent-low", "urgent-low-soon", "urgent-low-soon-minutes", "low", "high", "urgent-high",
        "rising-fast", "falling-fast", "signal-loss-minutes", "utc-offset", "night",
    ]
    /// The `[alarms.night]` keys.
    public static let nightKeys = ["from", "to", "low", "high"]
}

extension VigilConfiguration.Alarms.Units {
    /// `value` written in this unit, in mg/dL.
    func milligramsPerDeciliter(_ value: Double) -> Double {
        self == .milligramsPerDeciliter ? value : value * GlucoseConcentration.milligramsPerDeciliterPerMillimolePerLiter
    }

    /// A mg/dL value as a person using this unit writes it: whole mg/dL, or mmol/L to 0.1
    /// (the precision meters show).
    func text(_ milligramsPerDeciliter: Double) -> String {
        switch self {
        case .milligramsPerDeciliter:
            let rounded = milligramsPerDeciliter.rounded()
            return rounded == milligramsPerDeciliter ? "\(Int(rounded)) mg/dL" : "\(milligramsPerDeciliter) mg/dL"
        case .millimolesPerLiter:
            let mmol = (milligramsPerDeciliter / GlucoseConcentration.milligramsPerDeciliterPerMillimolePerLiter * 10).rounded() / 10
            return "\(mmol) mmol/L"
        }
    }
}

extension SchemaReader {
    /// A glucose key: absent, written `false` (off), or a value.
    private enum Setting<Value> {
        case absent, off, value(Value, TOML.Value)
    }

    mutating func readAlarms(_ table: TOML.Table) -> VigilConfiguration.Alarms {
        typealias Alarms = VigilConfiguration.Alarms
        let section = "[alarms]"
        var alarms = Alarms()
        if let units = choice("units", Alarms.Units.self, in: table, section) { alarms.units = units }
        let units = alarms.units
        var t = GlucoseThresholds.standard

        // Urgent low: raised, never disabled, as on a Dexcom receiver where it "cannot be turned
        // off": a low must always wake someone.
        switch glucose("urgent-low", in: table, section, units, range: Alarms.urgentLowRange) {
        case .value(let concentration, _): t.urgentLow = concentration
        case .off:
            fail(.invalidValue(key: "urgent-low", section: section,
                               reason: "urgent low cannot be turned off; give a threshold from \(units.text(Alarms.urgentLowRange.lowerBound)) to \(units.text(Alarms.urgentLowRange.upperBound))"),
                 at: table["urgent-low"]!.position)
        case .absent: break
        }
        let soon = boolean("urgent-low-soon", in: table, section) ?? true
        let soonMinutes = integer("urgent-low-soon-minutes", in: table, section, range: Alarms.urgentLowSoonMinutesRange)?.0 ?? 20
        t.urgentLowSoonHorizon = soon ? .seconds(soonMinutes * 60) : nil
        for (key, path) in [("low", \GlucoseThresholds.low), ("high", \.high), ("urgent-high", \.urgentHigh)] {
            switch glucose(key, in: table, section, units, range: Alarms.glucoseRange) {
            case .value(let concentration, _): t[keyPath: path] = concentration
            case .off: t[keyPath: path] = nil
            case .absent: break
            }
        }
        for (key, path) in [("rising-fast", \GlucoseThresholds.risingFast), ("falling-fast", \.fallingFast)] {
            switch rate(key, in: table, section, units) {
            case .value(let rate, _): t[keyPath: path] = rate
            case .off: t[keyPath: path] = nil
            case .absent: break
            }
        }
        checkOrder([("urgent-low", t.urgentLow), ("low", t.low), ("high", t.high), ("urgent-high", t.urgentHigh)],
                   in: table, section, units)
        alarms.thresholds = t
        if let (minutes, _) = integer("signal-loss-minutes", in: table, section, range: Alarms.signalLossMinutesRange) {
            alarms.signalLossMinutes = minutes
        }
        if let (text, value) = string("utc-offset", in: table, section) {
            if let offset = Self.utcOffset(text) {
                alarms.utcOffset = offset
            } else {
                fail(.invalidValue(key: "utc-offset", section: section,
                                   reason: "\(TOML.quoted(text)) is not an offset like \"+01:00\" or \"-05:00\" (-12:00 to +14:00)"),
                     at: value.position)
            }
        }
        if let night = table["night"] {
            if let nightTable = night.table {
                alarms.night = readNight(nightTable, at: night.position, day: t, units)
            } else {
                fail(.wrongType(key: "night", section: section,
                                expected: "a table: write [alarms.night] on its own line with from, to, low and high below it",
                                found: night.type),
                     at: night.position)
            }
        }
        return alarms
    }

    private mutating func readNight(_ table: TOML.Table, at position: TOML.Position, day: GlucoseThresholds,
                                    _ units: VigilConfiguration.Alarms.Units) -> VigilConfiguration.Alarms.Night? {
        let section = "[alarms.night]"
        for entry in table.entries where !VigilConfiguration.nightKeys.contains(entry.key) {
            let hint = Spelling.closest(to: entry.key, among: VigilConfiguration.nightKeys).map(ConfigurationError.Hint.didYouMean)
            fail(.unknownKey(key: entry.key, section: section, hint: hint), at: entry.keyPosition)
        }
        func time(_ key: String) -> TimeOfDay? {
            guard let (text, value) = string(key, in: table, section) else {
                if table[key] == nil { fail(.missingKey(key: key, section: section), at: position) }
                return nil
            }
            guard let time = Self.timeOfDay(text) else {
                fail(.invalidValue(key: key, section: section,
                                   reason: "\(TOML.quoted(text)) is not a local time like \"22:00\" or \"06:30\" (00:00 to 23:59)"),
                     at: value.position)
                return nil
            }
            return time
        }
        let from = time("from")
        let to = time("to")
        if let from, let to, from == to {
            fail(.invalidValue(key: "to", section: section,
                               reason: "the night must not start and end at the same time (\(from))"),
                 at: table["to"]!.position)
        }
        var low = day.low, high = day.high
        switch glucose("low", in: table, section, units, range: VigilConfiguration.Alarms.glucoseRange) {
        case .value(let concentration, _): low = concentration
        case .off: low = nil
        case .absent: break
        }
        switch glucose("high", in: table, section, units, range: VigilConfiguration.Alarms.glucoseRange) {
        case .value(let concentration, _): high = concentration
        case .off: high = nil
        case .absent: break
        }
        // Against the day's urgent thresholds, which the night keeps.
        checkOrder([("urgent-low", day.urgentLow), ("low", low), ("high", high), ("urgent-high", day.urgentHigh)],
                   in: table, section, units)
        guard let from, let to else { return nil }
        return VigilConfiguration.Alarms.Night(from: from, to: to, low: low, high: high)
    }

    /// A number in the file's unit, or `false`, checked against `range` (in mg/dL). A mmol/L
    /// value is compared in whole mg/dL, so the 2.2 mmol/L a person reads as "40" is accepted.
    private mutating func glucose(_ key: String, in table: TOML.Table, _ section: String,
                                  _ units: VigilConfiguration.Alarms.Units, range: ClosedRange<Double>) -> Setting<GlucoseConcentration> {
        guard let value = table[key] else { return .absent }
        if value.boolean == false { return .off }
        guard let number = Self.number(value) else {
            fail(.wrongType(key: key, section: section,
                            expected: "a number in \(units.rawValue) (or false to turn the alarm off)", found: value.type),
                 at: value.position)
            return .absent
        }
        let mgdl = units.milligramsPerDeciliter(number)
        let checked = units == .millimolesPerLiter ? mgdl.rounded() : mgdl
        guard number.isFinite, range.contains(checked) else {
            fail(.invalidValue(key: key, section: section,
                               reason: "\(value) \(units.rawValue) is out of range: it must be \(units.text(range.lowerBound)) to \(units.text(range.upperBound))"),
                 at: value.position)
            return .absent
        }
        return .value(GlucoseConcentration(milligramsPerDeciliter: mgdl), value)
    }

    /// A rate in the file's unit per minute, or `false` (off).
    private mutating func rate(_ key: String, in table: TOML.Table, _ section: String,
                               _ units: VigilConfiguration.Alarms.Units) -> Setting<GlucoseRate> {
        guard let value = table[key] else { return .absent }
        if value.boolean == false { return .off }
        let range = VigilConfiguration.Alarms.rateRange
        guard let number = Self.number(value) else {
            fail(.wrongType(key: key, section: section,
                            expected: "a rate in \(units.rawValue) per minute, like \(units == .milligramsPerDeciliter ? "3" : "0.2") (or false for off)",
                            found: value.type),
                 at: value.position)
            return .absent
        }
        let mgdl = units.milligramsPerDeciliter(number)
        guard number.isFinite, range.contains(mgdl) else {
            let bounds = units == .milligramsPerDeciliter
                ? "\(range.lowerBound) to \(range.upperBound) mg/dL per minute"
                : "0.03 to 0.55 mmol/L per minute"
            fail(.invalidValue(key: key, section: section, reason: "\(value) is out of range: it must be \(bounds)"),
                 at: value.position)
            return .absent
        }
        return .value(GlucoseRate(milligramsPerDeciliterPerMinute: mgdl), value)
    }

    /// Urgent low below low below high below urgent high, for the ones that are on; the error
    /// goes to the later key if the file wrote it, else to the earlier one.
    private mutating func checkOrder(_ chain: [(String, GlucoseConcentration?)], in table: TOML.Table, _ section: String,
                                     _ units: VigilConfiguration.Alarms.Units) {
        let on = chain.compactMap { key, value in value.map { (key, $0) } }
        for (a, b) in zip(on, on.dropFirst()) where a.1 >= b.1 {
            let key = table[b.0] != nil ? b.0 : a.0
            guard let value = table[key] else { continue }  // both defaults: cannot happen
            fail(.invalidValue(key: key, section: section,
                               reason: "\(b.0) (\(units.text(b.1.milligramsPerDeciliter))) must be above \(a.0) (\(units.text(a.1.milligramsPerDeciliter)))"),
                 at: value.position)
        }
    }

    private static func number(_ value: TOML.Value) -> Double? {
        if let integer = value.integer { return Double(integer) }
        return value.float
    }

    /// "HH:MM", 00:00 ... 23:59.
    static func timeOfDay(_ text: String) -> TimeOfDay? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let hour = Int(parts[0]), let minute = Int(parts[1])
        else { return nil }
        return TimeOfDay(hour: hour, minute: minute)
    }

    /// "+HH:MM" or "-HH:MM", -12:00 ... +14:00 (the offsets in use on Earth).
    static func utcOffset(_ text: String) -> Duration? {
        guard let sign = text.first, sign == "+" || sign == "-", let time = timeOfDay(String(text.dropFirst())) else { return nil }
        let minutes = time.minutesAfterMidnight * (sign == "-" ? -1 : 1)
        guard (-12 * 60)...(14 * 60) ~= minutes else { return nil }
        return .seconds(minutes * 60)
    }
}
