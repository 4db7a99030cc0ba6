import Readings
import Wire

/// SensorTag CC2541 humidity data (characteristic AA21, Sensirion SHT21;
/// docs/protocols/sensortag.md; bluepy `HumiditySensor.read`, node-sensortag
/// `convertHumidityData`): `TempLSB TempMSB HumLSB HumMSB`, two u16le raw SHT21 words.
///
/// - T = −46.85 + 175.72 × raw / 65536 °C
/// - RH = −6 + 125 × raw / 65536 %
///
/// The two low bits of each SHT21 word are status bits, not measurement. Both sources clear
/// them for humidity; neither does for temperature, which the SHT21 datasheet says to do too
/// (docs/protocols/sensortag.md §Humidity; the effect is under 0.01 °C). Vigil clears them in both.
public struct SensorTagHumidity: Hashable, Sendable {
    public var rawTemperature: UInt16
    public var rawHumidity: UInt16

    public init(rawTemperature: UInt16, rawHumidity: UInt16) {
        self.rawTemperature = rawTemperature
        self.rawHumidity = rawHumidity
    }

    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes)
        rawTemperature = try reader.readUInt16("SHT21 temperature")
        rawHumidity = try reader.readUInt16("SHT21 humidity")
        try reader.expectEnd("SensorTag humidity data")
    }

    /// Both words zero: what the characteristic holds before the sensor's first measurement.
    public var isEmpty: Bool { rawTemperature == 0 && rawHumidity == 0 }

    /// The SHT21 temperature, to hundredths of a degree: the datasheet's resolution at the
    /// 14-bit default (0.01 °C), and one raw step (175.72 × 4 / 65536 ≈ 0.011 °C) is wider than
    /// a hundredth, so no two readings merge; the digits beyond are the formula's, not the
    /// sensor's.
    public var temperature: Temperature {
        Temperature(degreesCelsius: Self.hundredths(-46.85 + 175.72 * Double(rawTemperature & 0xFFFC) / 65536))
    }

    /// Relative humidity as the formula gives it: −6 to just under 119 %.
    public var relativeHumidityPercent: Double { -6 + 125 * Double(rawHumidity & 0xFFFC) / 65536 }

    /// The humidity to hundredths of a percent (finer than the SHT21's 0.04 % at its 12-bit
    /// default). The linear formula runs past 0–100 % in very dry or condensing air; such values
    /// are clamped (a saturated fridge reads 100 %) rather than refused, since the sensor is
    /// working.
    public var relativeHumidity: RelativeHumidity {
        RelativeHumidity(percent: Self.hundredths(min(max(relativeHumidityPercent, 0), 100)))!
    }

    /// `value` rounded to hundredths, as the Double nearest that decimal.
    static func hundredths(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}
