import Readings

/// A reading's value as the CSV and JSON exports write it: the number(s) in a fixed unit per
/// kind, the unit's name, and the extra fields only some kinds have. One table, so CSV and JSON
/// can never disagree about units.
///
/// Units: glucose in mg/dL (stored that way; Nightscout's unit), heart rate in bpm, RR intervals
/// in milliseconds (exact: 1/1024 s is a terminating decimal), energy in kJ, temperature in °C,
/// humidity and battery in %.
struct ExportValue: Equatable {
    /// The value as text: one number, or RR intervals joined by spaces (oldest first).
    var text: String
    /// The same value for JSON: a number, or an array of numbers for RR intervals.
    var json: JSON
    var unit: String
    /// Nightscout direction for glucose; empty when the transmitter sent none.
    var trend: String?
    /// Heart rate only: the skin-contact status, so "no contact" rates are not mistaken for real.
    var contact: String?

    init(_ value: Reading.Value) {
        switch value {
        case let .heartRate(bpm, contact):
            self.init(number: Double(bpm.value), unit: "bpm")
            self.contact = switch contact {
            case .notReported: "not-reported"
            case .notDetected: "not-detected"
            case .detected: "detected"
            }
        case let .rrIntervals(intervals):
            self.init(text: intervals.map { Self.format($0.milliseconds) }.joined(separator: " "),
                      json: .array(intervals.map { .double($0.milliseconds) }), unit: "ms")
        case let .energyExpended(energy):
            self.init(number: Double(energy.kilojoules), unit: "kJ")
        case let .glucose(concentration, trend):
            self.init(number: concentration.milligramsPerDeciliter, unit: "mg/dL")
            self.trend = trend?.nightscoutName
        case let .meterGlucose(concentration):
            self.init(number: concentration.milligramsPerDeciliter, unit: "mg/dL")
        case let .humidity(level):
            self.init(number: Double(level.value), unit: "%")
        case let .temperature(temperature):
            self.init(number: temperature.degreesCelsius, unit: "°C")
        case let .battery(level):
            self.init(number: Double(level.value), unit: "%")
        }
    }

    private init(number: Double, unit: String) {
        self.init(text: Self.format(number), json: .double(number), unit: unit)
    }

    private init(text: String, json: JSON, unit: String) {
        self.text = text
        self.json = json
        self.unit = unit
    }

    /// Integral values without a fraction (`120`, not `120.0`), others in Swift's shortest
    /// round-tripping form, matching what `JSON` writes for the same number.
    static func format(_ number: Double) -> String {
        guard number.isFinite else { return "" }
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }
}
