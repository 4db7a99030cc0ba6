import Bluetooth
import Readings
import Testing
import Wire
@testable import Transmitters

@Suite struct RuuviDataFormat5Tests {
    /// The specification's test vector (ruuvi dataformat_05.md; docs/protocols/ruuvi.md,
    /// [verified]).
    static let valid = [UInt8](hex: "05 12FC 5394 C37C 0004 FFFC 040C AC36 42 00CD CBB8334C884F")

    @Test func specificationVectorEveryField() throws {
        let data = try RuuviDataFormat5(decoding: Self.valid)
        #expect(data.temperature == Temperature(degreesCelsius: 24.3))           // 0x12FC = 4860 × 0.005
        #expect(data.humidityPercent == 53.49)                                   // 0x5394 = 21396 × 0.0025, exactly
        #expect(data.humidityPercent.map { "\($0)" } == "53.49")                 // no binary-fraction noise
        #expect(data.pressurePascals == 100_044)                                 // 0xC37C + 50000
        #expect(data.accelerationX == 4)
        #expect(data.accelerationY == -4)
        #expect(data.accelerationZ == 1036)
        #expect(data.batteryMillivolts == 2977)                                  // 0xAC36 >> 5 = 1377, + 1600
        #expect(data.txPowerDBm == 4)                                            // 0xAC36 & 0x1F = 22, × 2 − 40
        #expect(data.movementCounter == 66)
        #expect(data.measurementSequence == 205)
        #expect(data.mac == Address(value: 0xCB_B8_33_4C_88_4F))
        #expect(data.mac?.description == "CB:B8:33:4C:88:4F")
    }

    /// Every field at its "not available" value (the table in docs/protocols/ruuvi.md): nil, not a
    /// number.
    @Test func everyNotAvailableValue() throws {
        let data = try RuuviDataFormat5(decoding: [UInt8](hex: "05 8000 FFFF FFFF 8000 8000 8000 FFFF FF FFFF FFFFFFFFFFFF"))
        #expect(data == RuuviDataFormat5())
    }

    /// The range limits, assembled from the same table: largest and smallest values that are
    /// not "not available".
    @Test func rangeLimits() throws {
        let high = try RuuviDataFormat5(decoding: [UInt8](hex: "05 7FFF FFFE FFFE 7FFF 7FFF 7FFF FFDE FE FFFE CBB8334C884F"))
        // The specification's maximum values: 163.835 °C and 163.835 %, as those decimals.
        #expect(high.temperature == Temperature(degreesCelsius: 163.835))
        #expect(high.humidityPercent == 163.835)
        #expect(high.pressurePascals == 115_534)
        #expect([high.accelerationX, high.accelerationY, high.accelerationZ] == [32767, 32767, 32767])
        #expect(high.batteryMillivolts == 3646)                                  // 2046 + 1600
        #expect(high.txPowerDBm == 20)                                           // 30 × 2 − 40: +22 cannot be sent
        #expect(high.movementCounter == 254)
        #expect(high.measurementSequence == 65534)
        let low = try RuuviDataFormat5(decoding: [UInt8](hex: "05 8001 0000 0000 8001 8001 8001 0000 00 0000 000000000000"))
        #expect(low.temperature == Temperature(degreesCelsius: -163.835))          // the specification's minimum
        #expect(low.humidityPercent == 0)
        #expect(low.pressurePascals == 50_000)
        #expect([low.accelerationX, low.accelerationY, low.accelerationZ] == [-32767, -32767, -32767])
        #expect(low.batteryMillivolts == 1600)
        #expect(low.txPowerDBm == -40)
        #expect(low.movementCounter == 0)
        #expect(low.measurementSequence == 0)
        #expect(low.mac == Address(value: 0))
    }

    @Test(arguments: [
        ([UInt8](), "data format"),
        ([0x03] + Array(valid[1...]), "Ruuvi data format (only 5 is supported): 3"),
        ([0xC5] + Array(valid[1...]), "Ruuvi data format (only 5 is supported): 197"),
        (Array(valid.dropLast()), "truncated at Ruuvi data format 5: needed 24 byte(s), 23 left"),
        (Array(valid.prefix(3)), "truncated at Ruuvi data format 5: needed 24 byte(s), 3 left"),
        (valid + [0x00], "1 unexpected trailing byte(s) after Ruuvi data format 5"),
    ] as [([UInt8], String)])
    func rejections(bytes: [UInt8], reason: String) {
        do {
            _ = try RuuviDataFormat5(decoding: bytes)
            Issue.record("accepted \(bytes.hexString)")
        } catch {
            #expect("\(error)".contains(reason), "\(error)")
        }
    }
}
