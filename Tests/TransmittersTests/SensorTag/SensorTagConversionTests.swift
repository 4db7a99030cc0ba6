import Readings
import Testing
import Wire
@testable import Transmitters

/// Expected values computed independently in Python from the formulas in
/// docs/protocols/sensortag.md (`(Tdie**4 + f/S)**0.25 - 273.15` with the constants there; SHT21
/// with masked raw words).
@Suite struct SensorTagConversionTests {
    func close(_ a: Double?, _ b: Double, within tolerance: Double = 1e-9) -> Bool {
        guard let a else { return false }
        return abs(a - b) < tolerance
    }

    @Test(arguments: [
        // bytes (ObjLSB ObjMSB AmbLSB AmbMSB), ambient, object with S0 6.4e-14, object with S0 5.593e-14
        ([UInt8](hex: "A0FF 000C"), 24.0, 26.041200573925607, 26.332294895933728),   // raw obj −96, amb 3072
        ([UInt8](hex: "5001 800C"), 25.0, 36.412048782504144, 37.95820548182013),    // raw obj 336, amb 3200
        ([UInt8](hex: "00FD 8002"), 5.0, -17.153159283655157, -20.86907811985006),   // raw obj −768, amb 640
    ] as [([UInt8], Double, Double, Double)])
    func irTemperatureBothS0Readings(bytes: [UInt8], ambient: Double, bluepy: Double, nodeSensorTag: Double) throws {
        let data = try SensorTagIRTemperature(decoding: bytes)
        #expect(data.ambient == Temperature(degreesCelsius: ambient))
        #expect(close(data.object()?.degreesCelsius, bluepy), "default S0 is bluepy's 6.4e-14")
        #expect(close(data.object(s0: SensorTagIRTemperature.defaultS0)?.degreesCelsius, bluepy))
        #expect(close(data.object(s0: SensorTagIRTemperature.nodeSensorTagS0)?.degreesCelsius, nodeSensorTag))
    }

    @Test func signedAmbientBelowZero() throws {
        // 0xFF00 = −256 → −2 °C.
        let data = try SensorTagIRTemperature(decoding: [0x00, 0x00, 0x00, 0xFF])
        #expect(data.rawObjectVoltage == 0)
        #expect(data.rawAmbient == -256)
        #expect(data.ambient == Temperature(degreesCelsius: -2))
    }

    @Test func impossibleObjectVoltageHasNoTemperature() {
        // A huge negative voltage would need a negative fourth power.
        #expect(SensorTagIRTemperature(rawObjectVoltage: .min, rawAmbient: -5000).object() == nil)
    }

    @Test func humidityEveryField() throws {
        // T raw 0x6664, RH raw 0x7C32 → 23.4316 °C, 54.6384 % (status bits 00); reported to
        // hundredths, the SHT21's own resolution.
        let data = try SensorTagHumidity(decoding: [UInt8](hex: "6466 327C"))
        #expect(data.rawTemperature == 0x6664)
        #expect(data.rawHumidity == 0x7C32)
        #expect(data.temperature == Temperature(degreesCelsius: 23.43))
        #expect(close(data.relativeHumidityPercent, 54.638427734375))
        #expect(data.relativeHumidity == RelativeHumidity(percent: 54.64))
        #expect(data.relativeHumidity.description == "54.64 %")
        #expect(!data.isEmpty)
    }

    @Test func statusBitsAreMaskedInBothWords() throws {
        let clean = try SensorTagHumidity(decoding: [UInt8](hex: "6466 327C"))
        let flagged = try SensorTagHumidity(decoding: [UInt8](hex: "6766 337C"))  // low bits 11 and 01
        #expect(flagged.temperature == clean.temperature)
        #expect(flagged.relativeHumidityPercent == clean.relativeHumidityPercent)
    }

    @Test func fridgeHumidityAndClamping() throws {
        // T raw 0x4A3C, RH raw 0x8A5A → 4.1049 °C, 61.5507 %.
        let fridge = try SensorTagHumidity(decoding: [UInt8](hex: "3C4A 5A8A"))
        #expect(fridge.temperature == Temperature(degreesCelsius: 4.1))        // 4.104939 to hundredths
        #expect(fridge.relativeHumidity == RelativeHumidity(percent: 61.55))
        // The formula's ends: raw 0 → −6 %, raw 0xFFFC → 118.99 %: clamped to 0 and 100.
        #expect(SensorTagHumidity(rawTemperature: 1, rawHumidity: 0).relativeHumidity == RelativeHumidity(percent: 0))
        #expect(SensorTagHumidity(rawTemperature: 1, rawHumidity: 0xFFFF).relativeHumidity == RelativeHumidity(percent: 100))
        #expect(SensorTagHumidity(rawTemperature: 0, rawHumidity: 0).isEmpty)
    }

    @Test(arguments: [[UInt8](), [0x01], [0x01, 0x02, 0x03], [0x01, 0x02, 0x03, 0x04, 0x05]])
    func wrongLengthsAreRejected(bytes: [UInt8]) {
        #expect(throws: WireError.self) { _ = try SensorTagIRTemperature(decoding: bytes) }
        #expect(throws: WireError.self) { _ = try SensorTagHumidity(decoding: bytes) }
    }

    @Test func profileUUIDsAndPeriod() {
        #expect(SensorTagProfile.irTemperatureService.description.uppercased() == "F000AA00-0451-4000-B000-000000000000")
        #expect(SensorTagProfile.humidityPeriod.description.uppercased() == "F000AA23-0451-4000-B000-000000000000")
        #expect(SensorTagProfile.periodByte(.seconds(1)) == 100)
        #expect(SensorTagProfile.periodByte(.milliseconds(250)) == 25)
        #expect(SensorTagProfile.periodByte(.milliseconds(20)) == 10, "clamped up to 100 ms")
        #expect(SensorTagProfile.periodByte(.seconds(10)) == 255, "clamped down to 2.55 s")
        #expect(SensorTagProfile.profile.namePrefix == "SensorTag")
    }
}
