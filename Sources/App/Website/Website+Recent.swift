import Clocks
import Readings

extension Website {
    /// The glucose the page and the Nightscout API are answered from: sensor glucose and meter
    /// readings of the last `kept` (Nightscout's default window, 4 days; the page draws the
    /// last 24 hours of it), oldest first. Heart rate and temperature are not kept here: only
    /// their last value is shown (`StatusBoard`), never a day of 1 Hz data.
    struct Recent: Sendable {
        static let kept = Duration.seconds(4 * 24 * 3600)
        /// A bound whatever the devices send: four days of a one-minute CGM is 5,760 readings;
        /// this leaves room for a second CGM and fingersticks.
        static let maximumCount = 16_000

        private(set) var readings: [RecordedReading] = []

        /// Keeps the glucose among `new` (any order: a backfill comes after newer readings), and
        /// forgets what is older than `kept` before `wallNow` or past the count bound.
        mutating func add(_ new: [RecordedReading], wallNow: WallClockTime) {
            let glucose = new.filter { $0.kind == .glucose || $0.kind == .meterGlucose }
            guard !glucose.isEmpty else { return }
            let new = glucose.sorted { $0.wallTime < $1.wallTime }
            if let last = readings.last, let first = new.first, first.wallTime < last.wallTime {
                // A backfill older than what is kept: one merge of two sorted runs, never an
                // insertion per reading.
                var merged: [RecordedReading] = []
                merged.reserveCapacity(readings.count + new.count)
                var i = readings.startIndex, j = new.startIndex
                while i < readings.endIndex || j < new.endIndex {
                    if j == new.endIndex || (i < readings.endIndex && readings[i].wallTime <= new[j].wallTime) {
                        merged.append(readings[i]); i += 1
                    } else {
                        merged.append(new[j]); j += 1
                    }
                }
                readings = merged
            } else {
                readings += new
            }
            let oldest = wallNow - Self.kept
            let tooOld = readings.prefix { $0.wallTime < oldest }.count
            let excess = max(tooOld, readings.count - Self.maximumCount)
            if excess > 0 { readings.removeFirst(excess) }
        }

        /// The newest sensor glucose, nil before the first.
        var latestGlucose: RecordedReading? { readings.last { $0.kind == .glucose } }

        /// `[time ms, mg/dL]` of `kind` since `since`, oldest first.
        func points(_ kind: Reading.Kind, since: WallClockTime) -> [(Int64, Double)] {
            readings.filter { $0.kind == kind && $0.wallTime >= since }.compactMap { reading in
                switch reading.value {
                case let .glucose(value, _), let .meterGlucose(value, _): (reading.wallTime.millisecondsSinceEpoch, value.milligramsPerDeciliter)
                default: nil
                }
            }
        }
    }
}
