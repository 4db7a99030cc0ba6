import Readings

/// How a `Reading.Value` is laid out in the `readings` table: a stable small-integer kind code,
/// one numeric value in the kind's unit, the Nightscout trend name, and a text detail for what
/// does not fit one number (RR intervals, skin contact). The unit is implied by the kind and not
/// stored: it would cost bytes on every one of the ~600,000 heart-rate rows a week.
///
/// | kind | code | value | trend | detail |
/// |---|---|---|---|---|
/// | glucose | 1 | mg/dL | Nightscout direction or NULL | - |
/// | meter-glucose | 2 | mg/dL | - | the meter's context, `meal=preprandial;tester=self`, or NULL |
/// | heart-rate | 3 | beats/min | - | `detected` / `not-detected` / NULL (not reported) |
/// | rr-intervals | 4 | count | - | ticks of 1/1024 s, comma-separated, oldest first |
/// | energy-expended | 5 | kJ | - | - |
/// | humidity | 6 | % (REAL, at the sensor's resolution: 81.5, 53.4925) | - | - |
/// | temperature | 7 | °C | - | - |
/// | battery | 8 | % | - | - |
///
/// The codes are part of the file format: never renumber one (the `kinds` table names them for
/// a person reading the file with the sqlite3 shell).
struct ReadingColumns: Equatable {
    var kindCode: Int64
    var value: Double
    var trend: String?
    var detail: String?

    static func code(of kind: Reading.Kind) -> Int64 {
        switch kind {
        case .glucose: 1
        case .meterGlucose: 2
        case .heartRate: 3
        case .rrIntervals: 4
        case .energyExpended: 5
        case .humidity: 6
        case .temperature: 7
        case .battery: 8
        }
    }

    static func kind(ofCode code: Int64) -> Reading.Kind? {
        Reading.Kind.allCases.first { Self.code(of: $0) == code }
    }

    init(kindCode: Int64, value: Double, trend: String?, detail: String?) {
        self.kindCode = kindCode
        self.value = value
        self.trend = trend
        self.detail = detail
    }

    init(_ value: Reading.Value) {
        kindCode = Self.code(of: value.kind)
        trend = nil
        detail = nil
        switch value {
        case let .heartRate(bpm, contact):
            self.value = Double(bpm.value)
            detail = switch contact {
            case .notReported: nil
            case .detected: "detected"
            case .notDetected: "not-detected"
            }
        case let .rrIntervals(intervals):
            self.value = Double(intervals.count)
            detail = intervals.map { String($0.ticks) }.joined(separator: ",")
        case let .energyExpended(energy): self.value = Double(energy.kilojoules)
        case let .glucose(concentration, direction):
            self.value = concentration.milligramsPerDeciliter
            trend = direction?.nightscoutName
        case let .meterGlucose(concentration, context):
            self.value = concentration.milligramsPerDeciliter
            detail = context?.text
        case let .humidity(humidity): self.value = humidity.percent
        case let .temperature(temperature): self.value = temperature.degreesCelsius
        case let .battery(level): self.value = Double(level.value)
        }
    }

    /// The value back, or why these columns cannot be one (a file edited by hand, a newer kind).
    func readingValue() -> Result<Reading.Value, ColumnError> {
        guard let kind = Self.kind(ofCode: kindCode) else { return .failure(.unknownKind(kindCode)) }
        func whole<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard value.isFinite, value == value.rounded(), let v = T(exactly: value) else { return nil }
            return v
        }
        switch kind {
        case .glucose:
            var direction: TrendDirection?
            if let trend {
                guard let known = TrendDirection(nightscoutName: trend) else { return .failure(.badTrend(trend)) }
                direction = known
            }
            return .success(.glucose(GlucoseConcentration(milligramsPerDeciliter: value), trend: direction))
        case .meterGlucose:
            var context: MeterReadingContext?
            if let detail {
                guard let parsed = MeterReadingContext(text: detail) else { return .failure(.badDetail(kind, detail)) }
                context = parsed
            }
            return .success(.meterGlucose(GlucoseConcentration(milligramsPerDeciliter: value), context: context))
        case .heartRate:
            guard let bpm = whole(UInt16.self) else { return .failure(.badValue(kind, value)) }
            let contact: SkinContact
            switch detail {
            case nil: contact = .notReported
            case "detected": contact = .detected
            case "not-detected": contact = .notDetected
            case let other?: return .failure(.badDetail(kind, other))
            }
            return .success(.heartRate(BeatsPerMinute(bpm), contact: contact))
        case .rrIntervals:
            guard let detail else { return .failure(.badDetail(kind, "")) }
            var intervals: [RRInterval] = []
            for field in detail.split(separator: ",", omittingEmptySubsequences: false) where !detail.isEmpty {
                guard let ticks = UInt16(field) else { return .failure(.badDetail(kind, detail)) }
                intervals.append(RRInterval(ticks: ticks))
            }
            return .success(.rrIntervals(intervals))
        case .energyExpended:
            guard let kj = whole(UInt16.self) else { return .failure(.badValue(kind, value)) }
            return .success(.energyExpended(EnergyExpended(kilojoules: kj)))
        case .humidity:
            // Fractional since humidity stopped being a whole `Percent`; rows stored before
            // hold whole numbers, which read back the same.
            guard let humidity = RelativeHumidity(percent: value) else { return .failure(.badValue(kind, value)) }
            return .success(.humidity(humidity))
        case .battery:
            guard let whole = whole(Int.self), let level = Percent(whole) else { return .failure(.badValue(kind, value)) }
            return .success(.battery(level))
        case .temperature:
            return .success(.temperature(Temperature(degreesCelsius: value)))
        }
    }

    enum ColumnError: Error, Equatable, CustomStringConvertible {
        case unknownKind(Int64)
        case badValue(Reading.Kind, Double)
        case badTrend(String)
        case badDetail(Reading.Kind, String)

        var description: String {
            switch self {
            case let .unknownKind(code): "unknown kind code \(code)"
            case let .badValue(kind, value): "value \(value) is not a \(kind.rawValue)"
            case let .badTrend(trend): "unknown trend \"\(trend)\""
            case let .badDetail(kind, detail): "detail \"\(detail)\" is not valid for \(kind.rawValue)"
            }
        }
    }
}
