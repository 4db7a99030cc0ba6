import Bluetooth

/// The TI SensorTag CC2541 (the 2013 "v1" SensorTag; docs/protocols/sensortag.md; bluepy
/// sensortag.py, node-sensortag cc2540.js and common.js).
///
/// Every sensor is a TI-base service `F000xxxx-0451-4000-B000-000000000000` with three
/// characteristics: data (read/notify), configuration (write 0x01 on, 0x00 off) and, in firmware
/// after 1.4, period (u8, 10 ms units). Vigil uses the IR temperature sensor (TMP006, AA00) and
/// the humidity sensor (SHT21, AA20), both present in every CC2541 tag; the period
/// characteristics are optional because firmware 1.4 lacks them.
///
/// Name: the tag's scan response says `SensorTag`, its GAP Device Name characteristic says
/// `TI BLE Sensor Tag` (node-sensortag accepts both because some hosts show the cached GAP
/// name). The matcher sees advertising data, so the profile's prefix is `SensorTag`; the name
/// lives only in the scan response, so this needs an active scan (the appliance's default).
public enum SensorTagProfile {
    /// A characteristic or service UUID on the TI base.
    public static func uuid(_ short: UInt16) -> BluetoothUUID {
        BluetoothUUID(high: 0xF000_0000_0451_4000 | UInt64(short) << 32, low: 0xB000_0000_0000_0000)
    }

    public static let names = ["SensorTag", "TI BLE Sensor Tag"]

    public static let irTemperatureService = uuid(0xAA00)
    public static let irTemperatureData = uuid(0xAA01)
    public static let irTemperatureConfiguration = uuid(0xAA02)
    public static let irTemperaturePeriod = uuid(0xAA03)
    public static let humidityService = uuid(0xAA20)
    public static let humidityData = uuid(0xAA21)
    public static let humidityConfiguration = uuid(0xAA22)
    public static let humidityPeriod = uuid(0xAA23)

    /// Configuration values (TI sensorTag.c `ST_CFG_SENSOR_ENABLE`; node-sensortag).
    public static let enable: [UInt8] = [0x01]
    public static let disable: [UInt8] = [0x00]

    public static let profile = TransmitterProfile(
        advertisedService: nil,
        namePrefix: "SensorTag",
        service: irTemperatureService,
        receiveCharacteristic: irTemperatureData,
        writeCharacteristic: irTemperatureConfiguration,
        otherCharacteristics: [
            CharacteristicRequirement(service: irTemperatureService, characteristic: irTemperaturePeriod, isOptional: true),
            CharacteristicRequirement(service: humidityService, characteristic: humidityData),
            CharacteristicRequirement(service: humidityService, characteristic: humidityConfiguration),
            CharacteristicRequirement(service: humidityService, characteristic: humidityPeriod, isOptional: true),
        ],
        security: .none)

    /// The period byte for a measurement interval: 10 ms units, clamped to 10...255
    /// (100 ms – 2.55 s), as node-sensortag `writePeriodCharacteristic` does.
    public static func periodByte(_ period: Duration) -> UInt8 {
        let milliseconds = period.components.seconds * 1000 + period.components.attoseconds / 1_000_000_000_000_000
        return UInt8(min(max(milliseconds / 10, 10), 255))
    }
}
