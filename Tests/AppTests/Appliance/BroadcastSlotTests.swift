@testable import App
import Bluetooth
import Clocks
import Readings
import Testing
import Transmitters

/// A broadcast slot on its own, with a BTHome thermometer's decoder: what it reports of each
/// advertisement, and which peer it takes as the transmitter's.
@Suite("A broadcast slot on its own")
struct BroadcastSlotTests {
    static let t0 = MonotonicInstant(nanoseconds: 5_000_000_000)
    static let mac = Address(value: 0x54_48_E6_8F_80_A5)
    static let address = DeviceAddress(mac, type: .public)

    static func slot() -> BroadcastSlot {
        BroadcastSlot(decoder: BTHomeDecoder(device: "fridge", configuration: .init(noDataTimeout: .seconds(600))),
                      remembered: nil, fixedAddress: nil, namePrefix: nil)
    }

    static func packet(_ id: UInt8, celsius: Double = 4.5, battery: Double = 97) -> AdvertisementSummary {
        let objects = [BTHomeObject(id: 0x00, value: .number(Double(id))), BTHomeObject(id: 0x01, value: .number(battery)),
                       BTHomeObject(id: 0x02, value: .number(celsius))]
        return AdvertisementSummary(address: address, name: "fridge",
                                    serviceData: [BTHomePacket.serviceUUID: BTHomePacket.serviceData(objects, advertiser: mac)!])
    }

    static func temperature(_ celsius: Double, at time: MonotonicInstant) -> Reading {
        Reading(device: "fridge", value: .temperature(Temperature(degreesCelsius: celsius)), time: .monotonic(time))
    }

    @Test("the first peer that brings a reading is taken as the transmitter's, once")
    func firstPeerIsRemembered() {
        var slot = Self.slot()
        #expect(slot.matches(Self.packet(1)))
        #expect(slot.heard(Self.packet(1), at: Self.t0).isFirstFromPeer)
        #expect(slot.remembered == Self.address)
        #expect(!slot.heard(Self.packet(2), at: Self.t0 + .seconds(1)).isFirstFromPeer)
    }

    @Test("readings go up together, and the battery level only when it changes")
    func batteryOnlyWhenItChanges() {
        var slot = Self.slot()
        let info = ApplianceEvent.transmitter("fridge", peer: Self.address, .info(TransmitterInfo(battery: Percent(97))))
        #expect(slot.heard(Self.packet(1), at: Self.t0).events
            == [info, .readings("fridge", peer: Self.address, [Self.temperature(4.5, at: Self.t0)])])
        let later = Self.t0 + .seconds(30)
        #expect(slot.heard(Self.packet(2, celsius: 5), at: later).events
            == [.readings("fridge", peer: Self.address, [Self.temperature(5, at: later)])])
        let lower = slot.heard(Self.packet(3, battery: 96), at: later).events
        #expect(lower.first == .transmitter("fridge", peer: Self.address, .info(TransmitterInfo(battery: Percent(96)))))
    }

    @Test("silence past the decoder's deadline is reported against the remembered peer")
    func silenceIsReported() {
        var slot = Self.slot()
        _ = slot.heard(Self.packet(1), at: Self.t0)
        #expect(slot.deadlinePassed(at: Self.t0 + .seconds(599)).isEmpty)
        #expect(slot.nextDeadline == Self.t0 + .seconds(600))
        #expect(slot.deadlinePassed(at: Self.t0 + .seconds(600))
            == [.transmitter("fridge", peer: Self.address, .noData(since: Self.t0, duration: .seconds(600)))])
    }
}
