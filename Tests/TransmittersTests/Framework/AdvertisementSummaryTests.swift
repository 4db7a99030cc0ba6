import Bluetooth
import Testing
import Wire
@testable import Transmitters

@Suite struct AdvertisementSummaryTests {
    static let address = DeviceAddress(Address(value: 0xC0_11_22_33_44_55), type: .random)

    @Test func theOriginalInitializerStillWorksWithEmptyData() {
        let summary = AdvertisementSummary(address: Self.address, name: "HRM", serviceUUIDs: [0x180D], rssi: -60)
        #expect(summary.serviceData.isEmpty)
        #expect(summary.manufacturerData.isEmpty)
        #expect(summary.description == "C0:11:22:33:44:55 (random) \"HRM\" [180D] -60 dBm")
    }

    @Test func builtFromAdvertisingDataAndScanResponse() throws {
        var ad = AdvertisingData.Builder()
        ad.flags(0x06)
        ad.serviceData16(0xFCD2, [0x40, 0x02, 0xC2, 0x01])
        ad.manufacturerData(company: 0x0499, [0x05, 0x01])
        var response = AdvertisingData.Builder()
        response.completeName("fridge")
        response.uuids16([0x180F])
        response.serviceData16(0xFCD2, [0x40])                   // the advertising PDU's wins
        response.manufacturerData(company: 0x004C, [0x02, 0x15])
        let summary = AdvertisementSummary(address: Self.address, advertising: try AdvertisingData(ad.bytes),
                                           scanResponse: try AdvertisingData(response.bytes), rssi: -70)
        #expect(summary.name == "fridge")
        #expect(summary.serviceUUIDs == [0x180F])
        #expect(summary.rssi == -70)
        #expect(summary.serviceData == [BluetoothUUID(0xFCD2): [0x40, 0x02, 0xC2, 0x01]])
        #expect(summary.manufacturerData == [0x0499: [0x05, 0x01], 0x004C: [0x02, 0x15]])
        #expect(summary.description == "C0:11:22:33:44:55 (random) \"fridge\" [180F] data(FCD2)=4002c201 mfr(0x004C)=0215 mfr(0x0499)=0501 -70 dBm")
    }

    @Test func noAdvertisingDataAtAll() {
        let summary = AdvertisementSummary(address: Self.address, advertising: nil)
        #expect(summary == AdvertisementSummary(address: Self.address))
    }
}
