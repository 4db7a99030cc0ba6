import Bluetooth

/// The Heart Rate Service profile (HRS; gatt-xml `org.bluetooth.service.heart_rate.xml`,
/// docs/protocols/sig-heart-rate.md and sig-common.md): service 0x180D, advertised as
/// 0x180D, measurements notified on 0x2A37.
///
/// Straps differ in what else they offer, so Body Sensor Location, Battery Level and the Device
/// Information strings are all optional. Most straps need no pairing; some (several Polar
/// and Garmin models, per user reports) answer "insufficient authentication" until paired,
/// hence `.pairingWhenAsked`.
public enum HeartRateProfile {
    public static let profile = TransmitterProfile(
        advertisedService: SIG.Service.heartRate,
        namePrefix: nil,
        service: SIG.Service.heartRate,
        receiveCharacteristic: SIG.Characteristic.heartRateMeasurement,
        writeCharacteristic: nil,
        otherCharacteristics: [
            CharacteristicRequirement(service: SIG.Service.heartRate, characteristic: SIG.Characteristic.bodySensorLocation, isOptional: true),
            CharacteristicRequirement(service: SIG.Service.battery, characteristic: SIG.Characteristic.batteryLevel, isOptional: true),
        ] + DeviceInformationString.allCases.map {
            CharacteristicRequirement(service: SIG.Service.deviceInformation, characteristic: $0.characteristic, isOptional: true)
        },
        security: .pairingWhenAsked)
}
