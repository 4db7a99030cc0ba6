import Bluetooth
import Wire

/// The Continuous Glucose Monitoring Service profile (CGMS; gatt-xml `cgm_*.xml`;
/// docs/protocols/sig-cgm.md): service 0x181F, advertised as 0x181F.
///
/// Required: CGM Measurement 0x2AA7 (notify), CGM Feature 0x2AA8, CGM Status 0x2AA9, Session
/// Start Time 0x2AAA and the Specific Ops Control Point 0x2AAC. Optional: Session Run Time
/// 0x2AAB and the RACP 0x2A52 (for records missed while out of range). CGMS requires bonding
/// like GLS (the server may answer 0x05/0x0F otherwise), so the link is encrypted first.
public enum CGMServiceProfile {
    public static let measurement = BluetoothUUID(0x2AA7)
    public static let feature = BluetoothUUID(0x2AA8)
    public static let status = BluetoothUUID(0x2AA9)
    public static let sessionStartTime = BluetoothUUID(0x2AAA)
    public static let sessionRunTime = BluetoothUUID(0x2AAB)
    public static let specificOpsControlPoint = BluetoothUUID(0x2AAC)
    public static let recordAccessControlPoint = BluetoothUUID(0x2A52)

    public static let profile = TransmitterProfile(
        advertisedService: SIG.Service.continuousGlucoseMonitoring,
        namePrefix: nil,
        service: SIG.Service.continuousGlucoseMonitoring,
        receiveCharacteristic: measurement,
        writeCharacteristic: specificOpsControlPoint,
        otherCharacteristics: [
            CharacteristicRequirement(service: SIG.Service.continuousGlucoseMonitoring, characteristic: feature),
            CharacteristicRequirement(service: SIG.Service.continuousGlucoseMonitoring, characteristic: status),
            CharacteristicRequirement(service: SIG.Service.continuousGlucoseMonitoring, characteristic: sessionStartTime),
            CharacteristicRequirement(service: SIG.Service.continuousGlucoseMonitoring, characteristic: sessionRunTime, isOptional: true),
            CharacteristicRequirement(service: SIG.Service.continuousGlucoseMonitoring, characteristic: recordAccessControlPoint, isOptional: true),
        ],
        security: .encryptionRequired)
}

/// The CGMS E2E-CRC: CRC-16/MCRF4XX over the value before it, appended little-endian
/// (NordicCommon `ContinuousGlucoseMeasurementDataCallback` uses `CRC16.MCRF4XX`;
/// docs/protocols/sig-cgm.md).
public enum CGME2ECRC {
    /// `payload` followed by its CRC.
    public static func appending(to payload: [UInt8]) -> [UInt8] {
        let crc = CRC16.mcrf4xx(payload)
        return payload + [UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8)]
    }

    /// The payload of a fixed-length CGMS value: exactly `length` bytes, or `length` + 2 with a
    /// CRC that must match. `required` (CGM Feature bit 12) makes a missing CRC an error; a CRC
    /// sent although the feature does not announce it is still checked, never skipped.
    public static func payload(of bytes: [UInt8], length: Int, required: Bool, what: StaticString) throws(WireError) -> [UInt8] {
        if bytes.count == length {
            guard !required else { throw .malformed("\(what): E2E-CRC missing although CGM Feature announces it") }
            return bytes
        }
        guard bytes.count == length + 2 else {
            throw .malformed("\(what): \(bytes.count) bytes, expected \(length) or \(length + 2) with E2E-CRC")
        }
        try check(bytes, what: what)
        return Array(bytes[0..<length])
    }

    /// Throws unless the last two bytes are the CRC of the rest.
    public static func check(_ bytes: [UInt8], what: StaticString) throws(WireError) {
        guard bytes.count >= 2 else { throw .truncated(field: "\(what) E2E-CRC", needed: 2, available: bytes.count) }
        let body = bytes[0..<(bytes.count - 2)]
        let sent = UInt16(bytes[bytes.count - 2]) | UInt16(bytes[bytes.count - 1]) << 8
        let computed = CRC16.mcrf4xx(body)
        guard sent == computed else {
            throw .malformed("\(what): E2E-CRC 0x\(String(sent, radix: 16)) does not match computed 0x\(String(computed, radix: 16))")
        }
    }
}
