import Clocks
import Readings

extension Nightscout {
    /// Entries as Nightscout serves them (`lib/server/entries.js` stores them so): the
    /// exporter's fields (`NightscoutExporter.fields`: `type`, `sgv`/`mbg`, `date`, `direction`,
    /// `device`, `notes`, `utcOffset`) with `dateString` in UTC as Nightscout rewrites it on
    /// upload, plus `_id`, `delta` for sensor glucose, and `sysTime` (the same UTC time).
    enum Entries {
        /// A delta is taken from the previous reading of the same device only when it is this
        /// recent: past it the two readings say nothing about the rate now.
        static let deltaHorizon = Duration.seconds(20 * 60)

        /// Every glucose and meter reading of `snapshot` as an entry, newest first.
        static func documents(_ snapshot: Snapshot) -> [[(String, JSON)]] {
            let readings = snapshot.readings.filter { $0.kind == .glucose || $0.kind == .meterGlucose }
                .sorted { ($0.wallTime, $0.device, $0.kind.rawValue) < ($1.wallTime, $1.device, $1.kind.rawValue) }
            var previous: [DeviceID: (time: WallClockTime, mgdL: Double)] = [:]
            var documents: [[(String, JSON)]] = []
            documents.reserveCapacity(readings.count)
            for reading in readings {
                guard var fields = NightscoutExporter.fields(of: reading, dateString: reading.wallTime.iso8601,
                                                             utcOffsetMinutes: snapshot.utcOffsetMinutes) else { continue }
                fields.insert(("_id", .string(DocumentID.of(reading, in: "entries"))), at: 0)
                if case let .glucose(concentration, _) = reading.value {
                    let delta = Self.delta(to: (reading.wallTime, concentration.milligramsPerDeciliter), from: previous[reading.device])
                    fields.insert(("delta", .double(delta)), at: fields.firstIndex { $0.0 == "device" } ?? fields.count)
                    previous[reading.device] = (reading.wallTime, concentration.milligramsPerDeciliter)
                }
                fields.append(("sysTime", .string(reading.wallTime.iso8601)))
                documents.append(fields)
            }
            return documents.reversed()
        }

        /// The change over 5 minutes, in mg/dL to three places, as xDrip+ uploads `delta` (its
        /// slope to the previous reading times 5 minutes); 0 without a previous reading within
        /// `deltaHorizon`, as xDrip+ writes a first reading (docs/nightscout-api.md "Entries").
        static func delta(to current: (WallClockTime, Double), from previous: (time: WallClockTime, mgdL: Double)?) -> Double {
            guard let previous, current.0 > previous.time, current.0 - previous.time <= deltaHorizon else { return 0 }
            let minutes = Double(current.0.microsecondsSinceEpoch - previous.time.microsecondsSinceEpoch) / 60_000_000
            return ((current.1 - previous.mgdL) / minutes * 5 * 1000).rounded() / 1000
        }
    }
}
