import Bluetooth

/// The UTF-8 string characteristics of the Device Information Service 0x180A (gatt-xml
/// `org.bluetooth.service.device_information.xml` and the characteristic XML files;
/// docs/protocols/sig-common.md §Device Information): model number 0x2A24 … manufacturer name
/// 0x2A29.
///
/// Decoding never fails: these strings are for people and logs, so invalid UTF-8 becomes
/// U+FFFD (Swift's `String(decoding:as:)` repair) instead of losing the whole value, and the
/// trailing NULs that many firmwares pad fixed-size buffers with are trimmed first.
public enum DeviceInformationString: CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case modelNumber
    case serialNumber
    case firmwareRevision
    case hardwareRevision
    case softwareRevision
    case manufacturerName

    public var characteristic: BluetoothUUID {
        switch self {
        case .modelNumber: SIG.Characteristic.modelNumberString
        case .serialNumber: SIG.Characteristic.serialNumberString
        case .firmwareRevision: SIG.Characteristic.firmwareRevisionString
        case .hardwareRevision: SIG.Characteristic.hardwareRevisionString
        case .softwareRevision: SIG.Characteristic.softwareRevisionString
        case .manufacturerName: SIG.Characteristic.manufacturerNameString
        }
    }

    public init?(characteristic: BluetoothUUID) {
        guard let match = Self.allCases.first(where: { $0.characteristic == characteristic }) else { return nil }
        self = match
    }

    public static func decode(_ bytes: [UInt8]) -> String {
        var end = bytes.count
        while end > 0 && bytes[end - 1] == 0 { end -= 1 }
        return String(decoding: bytes[0..<end], as: UTF8.self)
    }

    public var description: String {
        switch self {
        case .modelNumber: "model number"
        case .serialNumber: "serial number"
        case .firmwareRevision: "firmware revision"
        case .hardwareRevision: "hardware revision"
        case .softwareRevision: "software revision"
        case .manufacturerName: "manufacturer name"
        }
    }
}
