/// A glucose concentration, stored in mg/dL (what every transmitter and Nightscout's `sgv` use);
/// mmol/L is a view.
///
/// The conversion factor 18.0182 mg/dL per mmol/L is the molar mass of glucose
/// (180.182 g/mol) divided by 10 (dL per L); it is the factor Nightscout and xDrip use.
public struct GlucoseConcentration: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// mg/dL per mmol/L.
    public static let milligramsPerDeciliterPerMillimolePerLiter = 18.0182

    public var milligramsPerDeciliter: Double

    public init(milligramsPerDeciliter: Double) { self.milligramsPerDeciliter = milligramsPerDeciliter }

    public init(millimolesPerLiter: Double) {
        self.milligramsPerDeciliter = millimolesPerLiter * Self.milligramsPerDeciliterPerMillimolePerLiter
    }

    public var millimolesPerLiter: Double {
        milligramsPerDeciliter / Self.milligramsPerDeciliterPerMillimolePerLiter
    }

    /// Whole mg/dL, rounded half away from zero: Nightscout's integer `sgv`.
    public var roundedMilligramsPerDeciliter: Int {
        Int(milligramsPerDeciliter.rounded(.toNearestOrAwayFromZero))
    }

    public static func < (a: Self, b: Self) -> Bool { a.milligramsPerDeciliter < b.milligramsPerDeciliter }

    public var description: String { "\(roundedMilligramsPerDeciliter) mg/dL" }
}
