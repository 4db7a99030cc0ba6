/// Relative humidity in percent, 0 through 100, kept at the resolution the sensor sent it
/// (BTHome 0x03: 0.01 %; RuuviTag: 0.0025 %; SHT21: 0.01 % after conversion).
///
/// Not a `Percent`: that holds whole percents, which turned a fridge's 81.50 % into 82.
/// Decoders build the value by dividing the wire integer by its power of ten (8150 / 100), so
/// the stored Double is the one nearest the decimal the sensor meant and prints as such
/// ("81.5", never "81.50000000000001").
///
/// The only way to build one is through the range check: a sensor reporting more than 100 %
/// has failed, and decoders report that as malformed rather than clamp it.
public struct RelativeHumidity: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let percent: Double

    /// Nil unless `percent` is a finite number in 0...100.
    public init?(percent: Double) {
        guard percent.isFinite, (0...100).contains(percent) else { return nil }
        self.percent = percent
    }

    public static func < (a: Self, b: Self) -> Bool { a.percent < b.percent }

    public var description: String { "\(DecimalText.text(percent)) %" }
}
