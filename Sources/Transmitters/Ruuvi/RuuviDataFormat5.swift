import Bluetooth
import Readings
import Wire

/// RuuviTag data format 5 ("RAWv2"): the 24 bytes after company identifier 0x0499 in
/// Manufacturer Specific Data (ruuvi/ruuvi-sensor-protocols dataformat_05.md;
/// docs/protocols/ruuvi.md).
///
/// Unlike every other Bluetooth format here, all fields are **big-endian**, two's complement.
/// Each field has a "not available" value (a sensor missing or failed); it decodes to nil,
/// never to a number, so a dead humidity sensor cannot read as 163.8 %.
///
/// | Offset | Field | Decode | Not available |
/// |---|---|---|---|
/// | 0 | format | 5 | |
/// | 1–2 | temperature i16 | × 0.005 °C | 0x8000 |
/// | 3–4 | humidity u16 | × 0.0025 % | 0xFFFF |
/// | 5–6 | pressure u16 | + 50 000 Pa | 0xFFFF |
/// | 7–12 | acceleration X, Y, Z i16 | mG | 0x8000 each |
/// | 13–14 | power u16 | battery (v >> 5) + 1600 mV; TX (v & 0x1F) × 2 − 40 dBm | 2047 / 31 |
/// | 15 | movement counter u8 | | 255 |
/// | 16–17 | measurement sequence u16 | | 65535 |
/// | 18–23 | MAC, most significant byte first | | FF × 6 |
public struct RuuviDataFormat5: Hashable, Sendable {
    public static let companyIdentifier: UInt16 = 0x0499
    public static let format: UInt8 = 5
    public static let length = 24

    public var temperature: Temperature?
    /// Relative humidity in percent, at the format's 0.0025 % resolution. The format can carry
    /// up to 163.8375; values above 100 are the sensor's, not the format's, fault.
    public var humidityPercent: Double?
    public var pressurePascals: Int?
    /// Acceleration per axis in milli-g (1 g = 9.81 m/s²).
    public var accelerationX: Int?
    public var accelerationY: Int?
    public var accelerationZ: Int?
    public var batteryMillivolts: Int?
    /// Transmit power in dBm, −40 through +20 in steps of 2. The specification's text says +20
    /// in one place and +22 in another; the encoding settles it: code 31 means "not available",
    /// so the largest value is 30 × 2 − 40 = +20.
    public var txPowerDBm: Int?
    public var movementCounter: UInt8?
    public var measurementSequence: UInt16?
    /// The tag's own MAC, as printed on it.
    public var mac: Address?

    public init(temperature: Temperature? = nil, humidityPercent: Double? = nil, pressurePascals: Int? = nil,
                accelerationX: Int? = nil, accelerationY: Int? = nil, accelerationZ: Int? = nil,
                batteryMillivolts: Int? = nil, txPowerDBm: Int? = nil, movementCounter: UInt8? = nil,
                measurementSequence: UInt16? = nil, mac: Address? = nil) {
        self.temperature = temperature
        self.humidityPercent = humidityPercent
        self.pressurePascals = pressurePascals
        self.accelerationX = accelerationX
        self.accelerationY = accelerationY
        self.accelerationZ = accelerationZ
        self.batteryMillivolts = batteryMillivolts
        self.txPowerDBm = txPowerDBm
        self.movementCounter = movementCounter
        self.measurementSequence = measurementSequence
        self.mac = mac
    }

    /// Decodes the manufacturer data after the company identifier.
    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes)
        let format = try reader.readUInt8("data format")
        guard format == Self.format else { throw .invalidValue(field: "Ruuvi data format (only 5 is supported)", value: Int(format)) }
        guard bytes.count == Self.length else {
            throw bytes.count < Self.length
                ? .truncated(field: "Ruuvi data format 5", needed: Self.length, available: bytes.count)
                : .trailingBytes(what: "Ruuvi data format 5", count: bytes.count - Self.length)
        }
        func signed(_ raw: UInt16) -> Int? { raw == 0x8000 ? nil : Int(Int16(bitPattern: raw)) }
        let temperature = try reader.readUInt16BigEndian("temperature")
        // Divided by the steps per unit (200 of 0.005 °C, 400 of 0.0025 %) rather than multiplied
        // by the inexact step: the result is the Double nearest the decimal (4860 → 24.3).
        self.temperature = signed(temperature).map { Temperature(degreesCelsius: Double($0) / 200) }
        let humidity = try reader.readUInt16BigEndian("humidity")
        humidityPercent = humidity == 0xFFFF ? nil : Double(humidity) / 400
        let pressure = try reader.readUInt16BigEndian("pressure")
        pressurePascals = pressure == 0xFFFF ? nil : Int(pressure) + 50_000
        accelerationX = signed(try reader.readUInt16BigEndian("acceleration X"))
        accelerationY = signed(try reader.readUInt16BigEndian("acceleration Y"))
        accelerationZ = signed(try reader.readUInt16BigEndian("acceleration Z"))
        let power = try reader.readUInt16BigEndian("power info")
        batteryMillivolts = power >> 5 == 2047 ? nil : Int(power >> 5) + 1600
        txPowerDBm = power & 0x1F == 31 ? nil : Int(power & 0x1F) * 2 - 40
        let movement = try reader.readUInt8("movement counter")
        movementCounter = movement == 255 ? nil : movement
        let sequence = try reader.readUInt16BigEndian("measurement sequence")
        measurementSequence = sequence == 0xFFFF ? nil : sequence
        let macBytes = try reader.readBytes(6, "MAC")
        // The MAC is sent most significant byte first; `Address(wireBytes:)` takes wire order.
        mac = macBytes.allSatisfy({ $0 == 0xFF }) ? nil : Address(wireBytes: macBytes.reversed())
    }
}
