import Clocks
import Readings

/// The consensus CGM metrics over a report period (Battelino et al., "Clinical Targets for
/// Continuous Glucose Monitoring Data Interpretation", Diabetes Care 2019;
/// docs/peer-conventions.md §Reports clinicians read).
///
/// Choices, stated because the consensus leaves them open:
/// - Only sensor glucose (`.glucose`) counts; meter readings are calibration points, not CGM.
/// - Times in ranges are fractions of readings (each CGM reading stands for one equal interval).
///   A reading is classed by its whole mg/dL (rounded half away from zero), so 180.4 is in range
///   and the five ranges meet without gaps: <54, 54–69, 70–180, 181–250, >250.
/// - SD is the sample standard deviation (n − 1), CV = SD / mean.
/// - GMI (%) = 3.31 + 0.02392 × mean mg/dL (Bergenstal et al., Diabetes Care 2018).
/// - CGM active = 5-minute slots of the period holding at least one reading / slots in the
///   period, so a duplicate or a 1-minute sensor cannot push it past 100 %.
public struct ReportStatistics: Equatable, Sendable {
    /// The CGM reading interval the active time is measured against (Dexcom, Libre 3: 5 min).
    public static let expectedInterval: Duration = .seconds(300)

    /// Fractions (0...1) of readings in each consensus range; they sum to 1 when there are readings.
    public struct TimeInRanges: Equatable, Sendable {
        /// Below 54 mg/dL (level 2 hypoglycaemia; target < 1 %).
        public var veryLow: Double
        /// 54–69 mg/dL (level 1; below 70 altogether, target < 4 %).
        public var low: Double
        /// 70–180 mg/dL (target > 70 %).
        public var inRange: Double
        /// 181–250 mg/dL (above 180 altogether, target < 25 %).
        public var high: Double
        /// Above 250 mg/dL (target < 5 %).
        public var veryHigh: Double

        public init(veryLow: Double, low: Double, inRange: Double, high: Double, veryHigh: Double) {
            self.veryLow = veryLow
            self.low = low
            self.inRange = inRange
            self.high = high
            self.veryHigh = veryHigh
        }

        public static let zero = TimeInRanges(veryLow: 0, low: 0, inRange: 0, high: 0, veryHigh: 0)
    }

    /// Start (inclusive) of the period.
    public var start: WallClockTime
    /// End (exclusive) of the period.
    public var end: WallClockTime
    /// Sensor glucose readings inside the period.
    public var readingCount: Int
    public var timeInRanges: TimeInRanges
    /// Nil without readings (a report says "no data", never 0 mg/dL).
    public var meanMilligramsPerDeciliter: Double?
    /// Sample SD in mg/dL; nil with fewer than two readings.
    public var standardDeviationMilligramsPerDeciliter: Double?
    /// Glucose management indicator, in percent (an estimate of HbA1c from the mean).
    public var glucoseManagementIndicatorPercent: Double?
    /// Coefficient of variation as a fraction (0.36 is the consensus limit of stability).
    public var coefficientOfVariation: Double?
    /// Fraction (0...1) of the period's 5-minute slots holding a reading.
    public var activeFraction: Double

    /// The metrics of the `.glucose` readings in `readings` with wall time in `[start, end)`;
    /// other kinds and readings outside the period are ignored, so a caller may pass a page of
    /// everything.
    public init<S: Sequence>(readings: S, start: WallClockTime, end: WallClockTime) where S.Element == RecordedReading {
        self.start = start
        self.end = end
        var count = 0, sum = 0.0
        var ranges = [0, 0, 0, 0, 0]
        var values: [Double] = []
        var slots = Set<Int64>()
        let slotMicroseconds = Self.expectedInterval.nanosecondsClamped / 1000
        for reading in readings {
            guard case let .glucose(concentration, _) = reading.value, reading.wallTime >= start, reading.wallTime < end else { continue }
            let mgdL = concentration.milligramsPerDeciliter
            count += 1
            sum += mgdL
            values.append(mgdL)
            ranges[Self.rangeIndex(concentration.roundedMilligramsPerDeciliter)] += 1
            slots.insert((reading.wallTime.microsecondsSinceEpoch - start.microsecondsSinceEpoch) / slotMicroseconds)
        }
        readingCount = count
        let periodMicroseconds = max(0, end.microsecondsSinceEpoch - start.microsecondsSinceEpoch)
        let expectedSlots = (periodMicroseconds + slotMicroseconds - 1) / slotMicroseconds
        activeFraction = expectedSlots == 0 ? 0 : Double(slots.count) / Double(expectedSlots)
        guard count > 0 else {
            timeInRanges = .zero
            return
        }
        let n = Double(count)
        timeInRanges = TimeInRanges(veryLow: Double(ranges[0]) / n, low: Double(ranges[1]) / n, inRange: Double(ranges[2]) / n,
                                    high: Double(ranges[3]) / n, veryHigh: Double(ranges[4]) / n)
        let mean = sum / n
        meanMilligramsPerDeciliter = mean
        glucoseManagementIndicatorPercent = Self.glucoseManagementIndicator(meanMilligramsPerDeciliter: mean)
        if count > 1 {
            let squares = values.reduce(0.0) { $0 + ($1 - mean) * ($1 - mean) }
            let sd = (squares / (n - 1)).squareRoot()
            standardDeviationMilligramsPerDeciliter = sd
            coefficientOfVariation = mean > 0 ? sd / mean : nil
        }
    }

    /// GMI (%) = 3.31 + 0.02392 × mean glucose in mg/dL (Bergenstal et al. 2018).
    public static func glucoseManagementIndicator(meanMilligramsPerDeciliter mean: Double) -> Double {
        3.31 + 0.02392 * mean
    }

    /// 0 very low, 1 low, 2 in range, 3 high, 4 very high, for a whole mg/dL value.
    static func rangeIndex(_ mgdL: Int) -> Int {
        switch mgdL {
        case ..<54: 0
        case ..<70: 1
        case ...180: 2
        case ...250: 3
        default: 4
        }
    }
}
