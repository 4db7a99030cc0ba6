import Bluetooth
import Clocks
import Testing
@testable import Simulator

@Suite struct SimulatedDevicesTests {
    static func second(_ s: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: s * 1_000_000_000) }

    /// The measurement cycles through the four flag layouts of HRS 0x2A37
    /// (docs/protocols/sig-heart-rate.md §Heart Rate Measurement). Expected values worked by hand
    /// from the formula: BPM 60 + triangle/2 + (13 s mod 3), RR = 61440 / BPM in 1/1024 s.
    @Test(arguments: [
        (0, [0x06, 60]),                                          // u8, contact detected
        (1, [0x16, 61, 0xEF, 0x03]),                                                // + one RR (1007)
        (2, [0x19, 63, 0x00, 0x00, 0x00, 0xC8, 0x03, 0xD6, 0x03]),                  // u16 BPM, energy 0 kJ, RR 968 and 982
        (3, [0x14, 61, 0xEF, 0x03]),                                                // contact supported, not detected
        (62, [0x19, 91, 0x00, 0x06, 0x00, 0x9C, 0x02, 0xAA, 0x02]),                 // near the peak: 91 BPM, energy 6 kJ, RR 668/682
    ] as [(Int64, [UInt8])])
    func heartRateMeasurementLayouts(_ at: Int64, _ expected: [UInt8]) {
        #expect(SimulatedDevices.heartRateMeasurement(at: Self.second(at)) == expected)
    }

    @Test func heartRateStaysPlausibleAndDecodes() {
        for s in Int64(0)..<600 {
            let m = SimulatedDevices.heartRateMeasurement(at: Self.second(s))
            let flags = m[0]
            let bpm = flags & 1 == 0 ? Int(m[1]) : Int(m[1]) | Int(m[2]) << 8
            #expect((60...92).contains(bpm))
            var offset = flags & 1 == 0 ? 2 : 3
            if flags & 0x08 != 0 { offset += 2 }
            let rrBytes = m.count - offset
            #expect(rrBytes >= 0 && rrBytes % 2 == 0)
            #expect((flags & 0x10 != 0) == (rrBytes > 0))
        }
    }

    @Test(arguments: [(0, 100), (599, 100), (600, 99), (6_000, 90), (60_000, 0), (600_000, 0)] as [(Int64, UInt8)])
    func batteryDrainsOnePercentPerTenMinutes(_ at: Int64, _ percent: UInt8) {
        #expect(SimulatedDevices.batteryLevel(at: Self.second(at)) == [percent])
    }

    @Test func heartRateMonitorAdvertisesAndDeclaresItsServices() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        let ad = try AdvertisingData(hrm.advertising.data)
        #expect(ad.name == "Vigil Sim HRM")
        #expect(ad.serviceUUIDs == [0x180D, 0x180F])
        #expect(hrm.advertising.data.count <= 31)
        #expect(hrm.advertising.kind == .connectable)
        #expect(hrm.valueHandle(of: 0x2A37) == 3 && hrm.cccdHandle(of: 0x2A37) == 4)
        #expect(hrm.valueHandle(of: 0x2A38) == 6)
        #expect(hrm.valueHandle(of: 0x2A39) == 8 && hrm.cccdHandle(of: 0x2A39) == nil)
        #expect(hrm.valueHandle(of: 0x2A19) == 11 && hrm.cccdHandle(of: 0x2A19) == 12)
        #expect(hrm.valueHandle(of: 0x2A29) == 15)
    }

    @Test func batteryNotifiesEveryMinuteOnceSubscribed() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        _ = try host.att(handle, [0x12, 0x0C, 0x00, 0x01, 0x00])
        let start = host.now
        host.run(until: start + .seconds(600))
        let values = try host.l2capFrames().map(\.payload)
        #expect(values.count == 10)
        #expect(values.allSatisfy { $0.prefix(3) == [0x1B, 0x0B, 0x00] && $0.count == 4 })
        #expect(values.last == [0x1B, 0x0B, 0x00] + SimulatedDevices.batteryLevel(at: start + .seconds(600)))
    }
}
