import Clocks
import Readings

extension Nightscout {
    /// Fingersticks as Nightscout treatments: the careportal's "BG Check", `glucoseType`
    /// "Finger", `glucose` in mg/dL with `units` "mg/dl" (the fields `lib/server/treatments.js`
    /// keeps for a BG check; docs/nightscout-api.md "Treatments").
    ///
    /// A fingerstick a transmitter was calibrated with is the same blood as the meter reading
    /// that brought it: one treatment, whose `notes` say which transmitters took it. A
    /// calibration with no meter reading in the snapshot is a treatment of its own.
    enum Treatments {
        /// A calibration is the meter reading of the same value taken this close to it.
        static let sameBloodWindow = Duration.seconds(1)

        /// Every treatment of `snapshot`, newest first.
        static func documents(_ snapshot: Snapshot) -> [[(String, JSON)]] {
            let meters = snapshot.readings.filter { $0.kind == .meterGlucose }
            var calibrationsOf: [Int: [DeviceID]] = [:]
            var unmatched: [Calibration] = []
            for calibration in snapshot.calibrations {
                let match = meters.firstIndex { reading in
                    guard case let .meterGlucose(glucose, _) = reading.value else { return false }
                    let apart = reading.wallTime > calibration.wallTime ? reading.wallTime - calibration.wallTime : calibration.wallTime - reading.wallTime
                    return apart <= sameBloodWindow && glucose.roundedMilligramsPerDeciliter == calibration.glucose.roundedMilligramsPerDeciliter
                }
                if let match { calibrationsOf[match, default: []].append(calibration.device) } else { unmatched.append(calibration) }
            }
            var dated: [(WallClockTime, [(String, JSON)])] = []
            for (index, reading) in meters.enumerated() {
                guard case let .meterGlucose(glucose, context) = reading.value else { continue }
                let notes = [context?.text, calibrationsOf[index].map(Self.calibrationNote)].compactMap { $0 }
                dated.append((reading.wallTime, document(id: DocumentID.of(reading, in: "treatments"), glucose: glucose,
                                                         createdAt: reading.wallTime.iso8601, enteredBy: reading.device, notes: notes,
                                                         utcOffsetMinutes: snapshot.utcOffsetMinutes)))
            }
            for calibration in unmatched {
                dated.append((calibration.wallTime, document(of: calibration, createdAt: calibration.wallTime.iso8601,
                                                            utcOffsetMinutes: snapshot.utcOffsetMinutes)))
            }
            return dated.sorted { $0.0 > $1.0 }.map(\.1)
        }

        static func calibrationNote(_ devices: [DeviceID]) -> String {
            "calibration of " + devices.map(\.rawValue).joined(separator: ", ")
        }

        /// A calibration as a "BG Check" of its own, entered by the calibrated device; the same
        /// `_id` whether served or uploaded.
        static func document(of calibration: Calibration, createdAt: String, utcOffsetMinutes: Int64) -> [(String, JSON)] {
            let id = DocumentID.make(["treatments", "calibration", calibration.device.rawValue, String(calibration.wallTime.microsecondsSinceEpoch)])
            return document(id: id, glucose: calibration.glucose, createdAt: createdAt, enteredBy: calibration.device,
                            notes: [calibrationNote([calibration.device])], utcOffsetMinutes: utcOffsetMinutes)
        }

        /// `createdAt`: UTC as Nightscout serves it, or local time with its offset as an
        /// uploader sends it (Nightscout takes `utcOffset` from that offset).
        static func document(id: String, glucose: GlucoseConcentration, createdAt: String, enteredBy: DeviceID,
                             notes: [String], utcOffsetMinutes: Int64) -> [(String, JSON)] {
            var fields: [(String, JSON)] = [
                ("_id", .string(id)), ("eventType", "BG Check"), ("created_at", .string(createdAt)),
                ("glucose", .int(Int64(glucose.roundedMilligramsPerDeciliter))), ("glucoseType", "Finger"), ("units", "mg/dl"),
                ("enteredBy", .string("vigil-" + enteredBy.rawValue)),
            ]
            if !notes.isEmpty { fields.append(("notes", .string(notes.joined(separator: ", ")))) }
            fields.append(("utcOffset", .int(utcOffsetMinutes)))
            return fields
        }
    }

    /// Each device's battery as a Nightscout devicestatus record: `uploader.battery`, the
    /// percentage Nightscout's `upbat` plugin and `/pebble` read (`lib/plugins/upbat.js`,
    /// `lib/server/pebble.js`), under the device's name (docs/nightscout-api.md "Device status").
    enum DeviceStatuses {
        /// One record per device report, newest first.
        static func documents(_ snapshot: Snapshot) -> [[(String, JSON)]] {
            snapshot.devices.sorted { ($0.reportedAt, $1.device) > ($1.reportedAt, $0.device) }.map { report in
                [("_id", .string(DocumentID.make(["devicestatus", report.device.rawValue, String(report.reportedAt.microsecondsSinceEpoch)])))]
                    + fields(device: report.device, battery: report.battery, createdAt: report.reportedAt.iso8601,
                             utcOffsetMinutes: snapshot.utcOffsetMinutes)
            }
        }

        /// A record's fields but its `_id`: served with one, uploaded without (Nightscout
        /// inserts device status as sent, so a repeated `_id` would be refused).
        static func fields(device: DeviceID, battery: Percent, createdAt: String, utcOffsetMinutes: Int64) -> [(String, JSON)] {
            [
                ("device", .string("vigil-" + device.rawValue)), ("created_at", .string(createdAt)),
                ("uploader", .object([("battery", .int(Int64(battery.value)))])),
                ("utcOffset", .int(utcOffsetMinutes)),
            ]
        }
    }
}
