import Clocks

extension Nightscout {
    /// `/pebble`, the compact answer watch faces and clocks poll (`lib/server/pebble.js`):
    /// `{"status":[{"now":…}],"bgs":[…],"cals":[]}`, each bg with `sgv` as a string, `trend` as
    /// the pebble's number for the direction, `direction` and `datetime` (epoch ms); the first
    /// also carries `bgdelta` and, when a device reported one, `battery` (a string).
    ///
    /// Like Nightscout, and unlike every other endpoint, `/pebble` speaks the display unit: with
    /// `units=mmol` in the query or mmol/L as the configured unit, `sgv` is mmol/L to one place
    /// (`lib/units.js` divides by 18) and `bgdelta` a string to one place: a clock shows what it
    /// is sent (docs/nightscout-api.md "Pebble").
    enum Pebble {
        /// `DIRECTIONS` in `lib/server/pebble.js`; a direction not in it is 8.
        static let trends: [String: Int64] = [
            "NONE": 0, "DoubleUp": 1, "SingleUp": 2, "FortyFiveUp": 3, "Flat": 4, "FortyFiveDown": 5,
            "SingleDown": 6, "DoubleDown": 7, "NOT COMPUTABLE": 8, "RATE OUT OF RANGE": 9,
        ]

        /// One sensor glucose entry, as the pebble reads it.
        struct SGV: Equatable {
            var mgdL: Int64
            var direction: String
            var date: Int64
        }

        static func document(entries: [[(String, JSON)]], deviceStatuses: [[(String, JSON)]], count: Int, mmol: Bool,
                             now: WallClockTime) -> JSON {
            let sgvs = entries.compactMap(sgv)  // newest first
            var bgs: [JSON] = []
            for (index, sgv) in sgvs.prefix(count).enumerated() {
                var fields: [(String, JSON)] = [
                    ("sgv", .string(mmol ? millimolesText(Double(sgv.mgdL)) : String(sgv.mgdL))),
                    ("trend", .int(trends[sgv.direction] ?? 8)), ("direction", .string(sgv.direction)), ("datetime", .int(sgv.date)),
                ]
                if index == 0 {
                    let delta = Self.delta(sgvs, now: now)
                    fields.append(("bgdelta", mmol ? JSON.string(oneDecimal(delta?.millimoles ?? 0)) : JSON.int(delta?.milligrams ?? 0)))
                    if let battery = Self.battery(deviceStatuses) { fields.append(("battery", .string(String(battery)))) }
                }
                bgs.append(.object(fields))
            }
            return .object([("status", .array([.object([("now", .int(now.millisecondsSinceEpoch))])])), ("bgs", .array(bgs)), ("cals", .array([]))])
        }

        static func sgv(_ entry: [(String, JSON)]) -> SGV? {
            func field(_ name: String) -> JSON? { entry.first { $0.0 == name }?.1 }
            guard field("type") == .string("sgv"), case let .int(mgdL)? = field("sgv"), case let .int(date)? = field("date"),
                  case let .string(direction)? = field("direction") else { return nil }
            return SGV(mgdL: mgdL, direction: direction, date: date)
        }

        /// The newest record's `uploader.battery`, when above 0 (`addBattery`).
        static func battery(_ statuses: [[(String, JSON)]]) -> Int64? {
            for status in statuses {
                guard case let .object(uploader)? = status.first(where: { $0.0 == "uploader" })?.1 else { continue }
                if case let .int(level)? = uploader.first(where: { $0.0 == "battery" })?.1, level > 0 { return level }
                return nil
            }
            return nil
        }

        /// The bgnow plugin's delta (`lib/plugins/bgnow.js`): readings in 5-minute buckets back
        /// from the newest (the first centred on it), each bucket's mean of values above 39; the
        /// newest bucket's mean against the next older one's, scaled to 5 minutes when they are
        /// more than 9 minutes apart. Nil when there is no older bucket.
        static func delta(_ sgvs: [SGV], now: WallClockTime) -> (milligrams: Int64, millimoles: Double)? {
            let nowMs = now.millisecondsSinceEpoch
            guard let last = sgvs.first(where: { $0.date <= nowMs }) else { return nil }
            let bucketMs: Int64 = 300_000
            var buckets = [[SGV]](repeating: [], count: 4)
            for sgv in sgvs where sgv.date <= nowMs {
                let from0 = last.date - bucketMs / 2
                guard let index = (0..<4).first(where: { sgv.date >= from0 - Int64($0) * bucketMs && sgv.date <= from0 - Int64($0) * bucketMs + bucketMs }) else { break }
                buckets[index].append(sgv)
            }
            let analysed: [(mean: Double, mills: Int64)?] = buckets.map { bucket in
                let valid = bucket.filter { $0.mgdL > 39 }
                guard let newest = valid.map(\.date).max() else { return nil }
                return (Double(valid.map(\.mgdL).reduce(0, +)) / Double(valid.count), newest)
            }
            guard let recentIndex = analysed.firstIndex(where: { $0 != nil }), let recent = analysed[recentIndex],
                  let previous = analysed[(recentIndex + 1)...].compactMap({ $0 }).first(where: { $0.mills < recent.mills }) else { return nil }
            let absolute = recent.mean - previous.mean
            let elapsedMinutes = Double(recent.mills - previous.mills) / 60_000
            let mean5MinutesAgo = elapsedMinutes > 9 ? recent.mean - absolute / elapsedMinutes * 5 : recent.mean - absolute
            let millimoles = jsRound((millimoles(recent.mean) - millimoles(mean5MinutesAgo)) * 10) / 10
            return (Int64(jsRound(recent.mean - mean5MinutesAgo)), millimoles)
        }

        /// `mgdlToMMOL` in `lib/units.js`: mg/dL / 18 to one place.
        static func millimoles(_ mgdL: Double) -> Double { jsRound(mgdL / 18 * 10) / 10 }

        static func millimolesText(_ mgdL: Double) -> String { oneDecimal(millimoles(mgdL)) }

        /// JavaScript's `Math.round`: halves go up.
        static func jsRound(_ x: Double) -> Double { (x + 0.5).rounded(.down) }

        /// JavaScript's `toFixed(1)` for the values here (already rounded to a tenth).
        static func oneDecimal(_ x: Double) -> String {
            let tenths = Int64(jsRound(x * 10))
            let sign = tenths < 0 ? "-" : ""
            return "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10)"
        }
    }
}
