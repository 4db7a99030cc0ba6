import Bluetooth
import Clocks
import Readings
import Testing
import Transmitters
import Wire
@testable import Simulator

/// The simulated MiaoMiao over the simulated controller, read by the real `MiaoMiaoDriver`.
@Suite struct SimulatedMiaoMiaoTests {
    @Test func servesTheRealDumpInAValidPacket() throws {
        let fram = try LibreFRAM(decoding: SimulatedMiaoMiao.xDripLibre1FRAM)
        #expect(fram.sensorAgeMinutes == 4993)
        let packet = try MiaoMiaoPacket(decoding: SimulatedMiaoMiao.packet())
        #expect(packet.fram == SimulatedMiaoMiao.xDripLibre1FRAM)
        #expect(packet.sensorUIDHex == "2C5E8B0000A407E0")
        let notifications = SimulatedMiaoMiao.notifications()
        #expect(notifications.count == 19)
        #expect(notifications.dropLast().allSatisfy { $0.count == 20 })
        #expect(notifications.last?.count == 3)
        #expect(Array(notifications.joined()) == SimulatedMiaoMiao.packet())
    }

    @Test func advertisesItsNameAndTheUART() throws {
        let mm = SimulatedMiaoMiao.peripheral()
        let ad = try AdvertisingData(mm.advertising.data)
        #expect(ad.name == "miaomiao-sim")
        #expect(mm.valueHandle(of: NordicUART.receive) == 3 && mm.cccdHandle(of: NordicUART.receive) == 4)
        #expect(mm.valueHandle(of: NordicUART.write) == 6)
    }

    /// Subscribe, write F0, run the virtual clock for one packet's worth of notifications, and
    /// hand what arrived to the driver: it must decode the real dump's values.
    @Test func driverReadsTheSimulatedBridge() throws {
        let mm = SimulatedMiaoMiao.peripheral()
        var host = TestHost(peripherals: [mm])
        try host.bringUp()
        let handle = try host.connect(mm.address)
        #expect(try host.att(handle, [0x12, 0x04, 0x00, 0x01, 0x00]) == [[0x13]])  // CCCD: notify
        // Half a packet, then F0 restarts it from the top (the driver's first write).
        host.run(until: host.now + .milliseconds(500 * 8))
        _ = try host.l2capFrames()
        _ = try host.att(handle, [0x52, 0x06, 0x00, 0xF0])  // Write Command, no response
        let start = host.now
        host.run(until: start + .milliseconds(500 * 19))
        let notifications = try host.l2capFrames().filter { $0.cid == 0x0004 }.map(\.payload)
        #expect(notifications.count == 19)
        #expect(notifications.allSatisfy { $0.prefix(3) == [0x1B, 0x03, 0x00] })
        #expect(Array(notifications.map { $0.dropFirst(3) }.joined()) == SimulatedMiaoMiao.packet())

        var driver = MiaoMiaoDriver(device: "mm")
        _ = driver.start(DiscoveredServices([NordicUART.service: [
            DiscoveredCharacteristic(NordicUART.receive, properties: .notify),
            DiscoveredCharacteristic(NordicUART.write, properties: [.write, .writeWithoutResponse]),
        ]]), at: start)
        _ = driver.receive(.subscribed(NordicUART.receive), at: start)
        var actions: [DriverAction] = []
        for (i, notification) in notifications.enumerated() {
            actions += driver.receive(.value(NordicUART.receive, Array(notification.dropFirst(3)), origin: .notification), at: start + .milliseconds(500 * (i + 1)))
        }
        let glucose = actions.compactMap { action -> GlucoseConcentration? in
            if case let .emit(.reading(reading)) = action, case let .glucose(value, _) = reading.value { value } else { nil }
        }
        #expect(glucose.count == 33)
        #expect(glucose.first == GlucoseConcentration(milligramsPerDeciliter: 1323 / 8.5))
        #expect(!actions.contains { if case .emit(.malformedValue) = $0 { true } else { false } })
    }
}
