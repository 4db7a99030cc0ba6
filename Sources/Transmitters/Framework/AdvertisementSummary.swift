import Bluetooth
import Wire

/// What the matcher and the broadcast decoders need from one peer's advertising (ADV_IND and
/// SCAN_RSP merged by address; AD types 0x02–0x07 for service UUIDs, 0x08/0x09 for the name,
/// 0x16/0x20/0x21 for service data and 0xFF for manufacturer data; Core Specification Supplement
/// Part A §1).
/// The host's scanner builds it; the transmitter layer never parses advertising data itself.
public struct AdvertisementSummary: Hashable, Sendable, CustomStringConvertible {
    public var address: DeviceAddress
    /// The complete local name, or the shortened one if that is all there is.
    public var name: String?
    public var serviceUUIDs: [BluetoothUUID]
    /// dBm, if the controller reported it (127 means "not available" in HCI and becomes nil).
    public var rssi: Int8?
    /// Service Data (AD types 0x16, 0x20, 0x21; CSS Part A §1.11): the bytes after the UUID, by
    /// UUID. BTHome thermometers put their readings here (UUID 0xFCD2, the BTHome v2 format published at bthome.io).
    public var serviceData: [BluetoothUUID: [UInt8]]
    /// Manufacturer Specific Data (AD type 0xFF; CSS Part A §1.4): the bytes after the company
    /// identifier, by company. RuuviTags put their readings here (0x0499, Ruuvi Innovations; data format 5 in Ruuvi's published documentation).
    public var manufacturerData: [UInt16: [UInt8]]

    public init(address: DeviceAddress, name: String? = nil, serviceUUIDs: [BluetoothUUID] = [], rssi: Int8? = nil,
                serviceData: [BluetoothUUID: [UInt8]] = [:], manufacturerData: [UInt16: [UInt8]] = [:]) {
        self.address = address
        self.name = name
        self.serviceUUIDs = serviceUUIDs
        self.rssi = rssi
        self.serviceData = serviceData
        self.manufacturerData = manufacturerData
    }

    /// The summary of parsed advertising data and, if the peer answered a scan request, its
    /// scan response. Where both carry a name or the same service-data UUID or company, the
    /// advertising PDU wins: it is the one a passive scan sees too.
    public init(address: DeviceAddress, advertising: AdvertisingData?, scanResponse: AdvertisingData? = nil, rssi: Int8? = nil) {
        var uuids: [BluetoothUUID] = []
        var serviceData: [BluetoothUUID: [UInt8]] = [:]
        var manufacturerData: [UInt16: [UInt8]] = [:]
        for data in [advertising, scanResponse].compactMap({ $0 }) {
            for uuid in data.serviceUUIDs where !uuids.contains(uuid) { uuids.append(uuid) }
            for entry in data.serviceData where serviceData[entry.uuid] == nil {
                serviceData[entry.uuid] = Array(data.bytes[entry.range])
            }
            for entry in data.manufacturerData where manufacturerData[entry.company] == nil {
                manufacturerData[entry.company] = Array(data.bytes[entry.range])
            }
        }
        self.init(address: address, name: advertising?.name ?? scanResponse?.name, serviceUUIDs: uuids, rssi: rssi,
                  serviceData: serviceData, manufacturerData: manufacturerData)
    }

    public var description: String {
        var text = "\(address)"
        if let name { text += " \"\(name)\"" }
        if !serviceUUIDs.isEmpty { text += " [\(serviceUUIDs.map(\.description).joined(separator: ", "))]" }
        for uuid in serviceData.keys.sorted() { text += " data(\(uuid))=\(Hex.encode(serviceData[uuid]!))" }
        for company in manufacturerData.keys.sorted() { text += " mfr(0x\(Hex.encode([UInt8(company >> 8), UInt8(company & 0xFF)]).uppercased()))=\(Hex.encode(manufacturerData[company]!))" }
        if let rssi { text += " \(rssi) dBm" }
        return text
    }
}
