/// What the person told the meter about a fingerstick: the meal it relates to and who did the
/// test, from the Glucose Measurement Context that follows a record (Glucose Service
/// characteristic 0x2A34, gatt-xml `glucose_measurement_context.xml`; docs/glucose-meter-records.md).
///
/// Kept with the reading because a value means something else before a meal than after it,
/// and one taken by a laboratory is worth more than one from a drawer. Only the two fields a
/// person reads a logbook by are kept; carbohydrates, exercise, medication and HbA1c stay with
/// the driver.
///
/// `text` is the one spelling the history's `detail` column and the exports use:
/// `meal=preprandial;tester=self`, each part only when known.
public struct MeterReadingContext: Hashable, Sendable, CustomStringConvertible {
    /// Meal field values 1–5 (0 and 6–255 are reserved).
    public enum Meal: String, CaseIterable, Hashable, Sendable {
        case preprandial, postprandial, fasting, casual, bedtime
    }

    /// Tester nibble values 1, 2, 3 and 15 ("tester value not available"; the rest reserved).
    public enum Tester: String, CaseIterable, Hashable, Sendable {
        case selfTested = "self"
        case healthCareProfessional = "health-care-professional"
        case labTest = "lab-test"
        case notAvailable = "not-available"
    }

    public var meal: Meal?
    public var tester: Tester?

    /// Nil when neither is known: a context with nothing in it is no context.
    public init?(meal: Meal?, tester: Tester?) {
        guard meal != nil || tester != nil else { return nil }
        self.meal = meal
        self.tester = tester
    }

    /// `meal=…;tester=…`, in that order, each part only when known.
    public var text: String {
        [meal.map { "meal=\($0.rawValue)" }, tester.map { "tester=\($0.rawValue)" }].compactMap { $0 }.joined(separator: ";")
    }

    /// Parses `text` back; nil for anything it would not have written.
    public init?(text: String) {
        var meal: Meal?
        var tester: Tester?
        for part in text.split(separator: ";", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { return nil }
            switch pair[0] {
            case "meal" where meal == nil && tester == nil:
                guard let value = Meal(rawValue: String(pair[1])) else { return nil }
                meal = value
            case "tester" where tester == nil:
                guard let value = Tester(rawValue: String(pair[1])) else { return nil }
                tester = value
            default:
                return nil
            }
        }
        self.init(meal: meal, tester: tester)
    }

    public var description: String { text }
}
