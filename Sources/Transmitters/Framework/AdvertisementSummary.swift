import Bluetooth

/// What the matcher needs from one peer's advertising (ADV_IND and SCAN_RSP merged by address;
/// AD types 0x02–0x07 for service UUIDs and 0x08/0x09 for the name, protocols.md §8.5).
/// The host's scanner builds it; the transmitter layer never parses advertising data itself.
public struct AdvertisementSummary: Hashable, Sendable, CustomStringConvertible {
    public var address: DeviceAddress
    /// The complete local name, or the shortened one if that is all there is.
    public var name: String?
    public var serviceUUIDs: [BluetoothUUID]
    /// dBm, if the controller reported it (127 means "not available" in HCI and becomes nil).
    public var rssi: Int8?

    public init(address: DeviceAddress, name: String? = nil, serviceUUIDs: [BluetoothUUID] = [], rssi: Int8? = nil) {
        self.address = address
        self.name = name
        self.serviceUUIDs = serviceUUIDs
        self.rssi = rssi
    }

    public var description: String {
        var text = "\(address)"
        if let name { text += " \"\(name)\"" }
        if !serviceUUIDs.isEmpty { text += " [\(serviceUUIDs.map(\.description).joined(separator: ", "))]" }
        if let rssi { text += " \(rssi) dBm" }
        return text
    }
}
