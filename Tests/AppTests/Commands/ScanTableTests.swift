import Bluetooth
import Clocks
@testable import Host
import Testing
import Transmitters
@testable import App

@Suite struct ScanTableTests {
    static func advertisement(_ data: [UInt8], scanResponse: [UInt8]? = nil, rssi: Int8? = -60) -> Advertisement {
        Advertisement(address: DeviceAddress(Address(value: 0xC2_11_22_33_44_55), type: .random), rssi: rssi, isConnectable: true,
                      advertisingData: data, scanResponse: scanResponse, firstSeen: .zero, lastSeen: .zero, isNew: true)
    }

    /// The `vigil scan --json` contract: field names and forms scripts rely on.
    @Test func jsonOfAHeartRateMonitor() {
        var ad = AdvertisingData.Builder()
        ad.flags(0x06)
        ad.completeName("Vigil HRM")
        ad.uuids16([0x180D, 0x180F])
        ad.appearance(832)
        var response = AdvertisingData.Builder()
        response.txPower(4)
        let json = ScanTable.json(Self.advertisement(ad.bytes, scanResponse: response.bytes)).rendered
        #expect(json == #"{"address":"C2:11:22:33:44:55","addressType":"random","rssi":-60,"name":"Vigil HRM","services":["180D","180F"],"appearance":832,"txPower":4,"connectable":true}"#)
    }

    @Test func manufacturerAndMalformedData() {
        var ad = AdvertisingData.Builder()
        ad.manufacturerData(company: 0x004C, [0x02, 0x15])
        let bytes = ad.bytes + [0x05, 0xFF]  // a structure that claims more bytes than follow
        let json = ScanTable.json(Self.advertisement(bytes, rssi: nil)).rendered
        #expect(json.contains(#""malformed":"AD structure at offset 6 claims 5 byte(s), past the end of the data""#))
        #expect(!json.contains("rssi"))
    }

    /// A BTHome thermometer's data is decoded in the scan table without a key, at the format's
    /// resolution (humidity 0x03 in 0.01 %: 51.25, which the scan once printed as 51).
    @Test func decodesABTHomeThermometer() throws {
        let advertiser = Address(value: 0xC2_11_22_33_44_55)
        let payload = try #require(BTHomePacket.serviceData([BTHomeObject(id: 0x02, value: .number(4.5)), BTHomeObject(id: 0x03, value: .number(51.25))], advertiser: advertiser))
        var ad = AdvertisingData.Builder()
        ad.serviceData16(0xFCD2, payload)
        let decoded = BroadcastDecoding.decode(Self.advertisement(ad.bytes))
        #expect(decoded?.rendered == #"{"type":"bthome","celsius":4.5,"humidity":51.25}"#)
    }

    @Test func tableFoldsUpdatesOfOneDevice() {
        var table = ScanTable()
        var ad = AdvertisingData.Builder()
        ad.completeName("A")
        table.update(Self.advertisement(ad.bytes))
        let row = table.update(Self.advertisement(ad.bytes, rssi: -40))
        #expect(row.updates == 2)
        #expect(table.rows.count == 1)
        #expect(table.table().contains("C2:11:22:33:44:55  random     -40   A"))
    }
}
