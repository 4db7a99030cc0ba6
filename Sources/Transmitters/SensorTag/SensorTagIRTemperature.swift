import Readings
import Wire

/// SensorTag CC2541 IR temperature data (characteristic AA01, TMP006 thermopile;
/// docs/protocols/sensortag.md; bluepy `IRTemperatureSensor.read`, node-sensortag
/// `convertIrTemperatureData`): `ObjLSB ObjMSB AmbLSB AmbMSB`, two i16le.
///
/// - Ambient (the sensor die): raw / 128 °C.
/// - Object: the TMP006 model (TMP006 User's Guide): Vobj = raw × 156.25 nV, then
///   Tobj = ⁴√(Tdie⁴ + f(Vobj)/S) with S and the offset voltage corrected for Tdie − 298.15 K.
///
/// **S0 (the sensor's sensitivity calibration) disagrees between sources:** bluepy and the
/// tomosoft.jp page use 6.4e-14, node-sensortag 5.593e-14; both cite TI. Vigil defaults to
/// **6.4e-14**, the typical value the TMP006 User's Guide gives for an uncalibrated sensor, and
/// lets the configuration choose (`ir-s0=5.593e-14`); tests pin both readings. The difference
/// grows with the object–die gap: about 0.3 °C at 2 °C apart, 3.7 °C at 22 °C apart.
public struct SensorTagIRTemperature: Hashable, Sendable {
    public static let defaultS0 = 6.4e-14
    public static let nodeSensorTagS0 = 5.593e-14

    public var rawObjectVoltage: Int16
    public var rawAmbient: Int16

    public init(rawObjectVoltage: Int16, rawAmbient: Int16) {
        self.rawObjectVoltage = rawObjectVoltage
        self.rawAmbient = rawAmbient
    }

    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes)
        rawObjectVoltage = try reader.readInt16("IR object voltage")
        rawAmbient = try reader.readInt16("IR ambient temperature")
        try reader.expectEnd("SensorTag IR temperature data")
    }

    public var ambient: Temperature { Temperature(degreesCelsius: Double(rawAmbient) / 128) }

    /// The object temperature by the TMP006 model, or nil where the model has no real solution
    /// (a voltage no real object produces: the fourth root of a negative number).
    public func object(s0: Double = defaultS0) -> Temperature? {
        let vObject = Double(rawObjectVoltage) * 1.5625e-7
        let tDie = ambient.degreesCelsius + 273.15
        let d = tDie - 298.15
        let s = s0 * (1 + 1.75e-3 * d - 1.678e-5 * d * d)
        let vOffset = -2.94e-5 - 5.7e-7 * d + 4.63e-9 * d * d
        let v = vObject - vOffset
        let f = v + 13.4 * v * v
        let fourth = tDie * tDie * tDie * tDie + f / s
        guard fourth > 0, fourth.isFinite else { return nil }
        return Temperature(degreesCelsius: fourth.squareRoot().squareRoot() - 273.15)
    }
}
