import Wire

/// PnP ID, characteristic 0x2A50 of the Device Information Service: vendor ID source u8,
/// vendor ID u16, product ID u16, product version u16; 7 bytes (gatt-xml `pnp_id.xml`,
/// docs/protocols/sig-common.md §Device Information). Source 1 = Bluetooth SIG company identifier,
/// 2 = USB Implementers Forum vendor ID (from the DIS specification; unconfirmed in our reference).
public struct PnPID: Hashable, Sendable, CustomStringConvertible {
    public enum VendorIDSource: Hashable, Sendable {
        case bluetoothSIG
        case usbImplementersForum
        case reserved(UInt8)

        public init(rawValue: UInt8) {
            switch rawValue {
            case 1: self = .bluetoothSIG
            case 2: self = .usbImplementersForum
            default: self = .reserved(rawValue)
            }
        }

        public var rawValue: UInt8 {
            switch self {
            case .bluetoothSIG: 1
            case .usbImplementersForum: 2
            case let .reserved(value): value
            }
        }
    }

    public var vendorIDSource: VendorIDSource
    public var vendorID: UInt16
    public var productID: UInt16
    public var productVersion: UInt16

    public init(vendorIDSource: VendorIDSource, vendorID: UInt16, productID: UInt16, productVersion: UInt16) {
        self.vendorIDSource = vendorIDSource
        self.vendorID = vendorID
        self.productID = productID
        self.productVersion = productVersion
    }

    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes)
        vendorIDSource = VendorIDSource(rawValue: try reader.readUInt8("PnP vendor ID source"))
        vendorID = try reader.readUInt16("PnP vendor ID")
        productID = try reader.readUInt16("PnP product ID")
        productVersion = try reader.readUInt16("PnP product version")
        try reader.expectEnd("PnP ID")
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 7)
        writer.write(vendorIDSource.rawValue)
        writer.write(vendorID)
        writer.write(productID)
        writer.write(productVersion)
        return writer.bytes
    }

    public var description: String {
        func hex16(_ v: UInt16) -> String { Hex.encode([UInt8(v >> 8), UInt8(truncatingIfNeeded: v)]) }
        return "source \(vendorIDSource.rawValue) vendor 0x\(hex16(vendorID)) product 0x\(hex16(productID)) version 0x\(hex16(productVersion))"
    }
}
