import Readings

/// A reading's value as the CSV and JSON exports write it: the number(s) in a fixed unit per
/// kind, the unit's name, and the extra fields only some kinds have. One table, so CSV and JSON
/// can never disagree about units.
///
/// Units: glucose in mg/dL (stored that way; Nightscout's unit), heart rate in bpm, RR intervals
/// in milliseconds (exact: 1/1024 s is a terminating decimal), energy in kJ, temperature in °C,
/// humidity and battery in %. Numbers are written in Swift's shortest round-trip form, so a
/// sensor's decimal (humidity 81.5, 53.4925) comes out as the sensor sent it.
struct ExportValue {
    var value: Reading.Value

    init(_ value: Reading.Value) { self.value = value }

    var unit: String {
        switch value {
        case .heartRate: "bpm"
        case .rrIntervals: "ms"
        case .energyExpended: "kJ"
        case .glucose, .meterGlucose: "mg/dL"
        case .humidity, .battery: "%"
        case .temperature: "°C"
        }
    }

    /// Nightscout direction for glucose; nil when the transmitter sent none.
    var trend: String? {
        guard case let .glucose(_, trend?) = value else { return nil }
        return trend.nightscoutName
    }

    /// Heart rate only: the skin-contact status, so "no contact" rates are not mistaken for real.
    var contact: String? {
        guard case let .heartRate(_, contact) = value else { return nil }
        return switch contact {
        case .notReported: "not-reported"
        case .notDetected: "not-detected"
        case .detected: "detected"
        }
    }

    /// Meter glucose only: the meal and tester the person gave the meter.
    var context: MeterReadingContext? {
        guard case let .meterGlucose(_, context?) = value else { return nil }
        return context
    }

    /// The single number, or nil for RR intervals (several).
    var number: Double? {
        switch value {
        case let .heartRate(bpm, _): Double(bpm.value)
        case .rrIntervals: nil
        case let .energyExpended(energy): Double(energy.kilojoules)
        case let .glucose(concentration, _), let .meterGlucose(concentration, _): concentration.milligramsPerDeciliter
        case let .humidity(humidity): humidity.percent
        case let .battery(level): Double(level.value)
        case let .temperature(temperature): temperature.degreesCelsius
        }
    }

    /// The value as CSV text: one number, or RR intervals joined by spaces (oldest first).
    func writeText(into writer: inout ExportWriter) {
        if let number {
            writer.write(number: number)
        } else if case let .rrIntervals(intervals) = value {
            for (i, interval) in intervals.enumerated() {
                if i > 0 { writer.write(byte: 0x20) }
                writer.write(number: interval.milliseconds)
            }
        }
    }

    /// The value as JSON: a number (null if not finite), or an array of numbers for RR intervals.
    func writeJSON(into writer: inout ExportWriter) {
        if let number {
            if number.isFinite { writer.write(number: number) } else { writer.write("null") }
        } else if case let .rrIntervals(intervals) = value {
            writer.write(byte: 0x5B)
            for (i, interval) in intervals.enumerated() {
                if i > 0 { writer.write(byte: 0x2C) }
                writer.write(number: interval.milliseconds)
            }
            writer.write(byte: 0x5D)
        }
    }

    /// The CSV text as a string (tests, and callers outside the hot path).
    var text: String {
        var writer = ExportWriter(capacity: 16)
        writeText(into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
