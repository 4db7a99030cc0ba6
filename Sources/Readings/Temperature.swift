/// A temperature, stored in degrees Celsius (what the SIG Temperature characteristics and the
/// SensorTag report); Fahrenheit is a view.
public struct Temperature: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var degreesCelsius: Double

    public init(degreesCelsius: Double) { self.degreesCelsius = degreesCelsius }

    public init(degreesFahrenheit: Double) { self.degreesCelsius = (degreesFahrenheit - 32) * 5 / 9 }

    public var degreesFahrenheit: Double { degreesCelsius * 9 / 5 + 32 }

    public static func < (a: Self, b: Self) -> Bool { a.degreesCelsius < b.degreesCelsius }

    /// A sensor's decimal steps (0.01 °C, RuuviTag's 0.005 °C) print as such, a computed value
    /// to hundredths, never binary-fraction noise (`DecimalText`).
    public var description: String { "\(DecimalText.text(degreesCelsius)) °C" }
}
