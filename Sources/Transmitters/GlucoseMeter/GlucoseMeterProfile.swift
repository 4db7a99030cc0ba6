import Bluetooth

/// The Glucose Service profile (GLS; docs/protocols/sig-glucose.md): service 0x1808, advertised as
/// 0x1808; Glucose Measurement 0x2A18 notified, Record Access Control Point 0x2A52 written and
/// indicated, Measurement Context 0x2A34 and Glucose Feature 0x2A51 optional.
///
/// Security: GLS 1.0 has the collector bond with the meter, and the meters users report
/// (Accu-Chek Guide, Contour Next One) refuse the RACP and the measurement CCCD until paired.
/// none of the sources read settles it (docs/protocols/sig-glucose.md §Record Access Control
/// Point), so `.encryptionRequired` is a decision: pairing first
/// costs one step with a meter that would not need it, skipping it costs every transfer with
/// one that does.
public enum GlucoseMeterProfile {
    public static let measurement = BluetoothUUID(0x2A18)
    public static let measurementContext = BluetoothUUID(0x2A34)
    public static let feature = BluetoothUUID(0x2A51)
    public static let recordAccessControlPoint = BluetoothUUID(0x2A52)

    public static let profile = TransmitterProfile(
        advertisedService: SIG.Service.glucose,
        namePrefix: nil,
        service: SIG.Service.glucose,
        receiveCharacteristic: measurement,
        writeCharacteristic: recordAccessControlPoint,
        otherCharacteristics: [
            CharacteristicRequirement(service: SIG.Service.glucose, characteristic: measurementContext, isOptional: true),
            CharacteristicRequirement(service: SIG.Service.glucose, characteristic: feature, isOptional: true),
            CharacteristicRequirement(service: SIG.Service.battery, characteristic: SIG.Characteristic.batteryLevel, isOptional: true),
        ],
        security: .encryptionRequired)
}
