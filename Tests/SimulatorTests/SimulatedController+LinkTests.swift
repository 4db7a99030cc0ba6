import Bluetooth
import Clocks
import HCI
import Testing
import Wire
@testable import Simulator

/// Scanning, connecting and ACL data on the virtual clock.
@Suite struct SimulatedControllerLinkTests {
    static let beacon = DeviceAddress(Address(value: 0xC1_00_00_00_00_02), type: .random)

    /// Advertising reports until `end`, with the time each was taken.
    static func reports(_ host: inout TestHost, until end: MonotonicInstant, step: Duration = .milliseconds(10)) throws -> [(time: MonotonicInstant, report: HCI.AdvertisingReport)] {
        var out: [(MonotonicInstant, HCI.AdvertisingReport)] = []
        while host.now < end {
            guard let due = host.controller.nextDeadline, due <= end else { host.run(until: end); break }
            host.run(until: due)
            for case .le(.advertisingReports(let rs)) in try host.events() { out += rs.map { (host.now, $0) } }
        }
        return out
    }

    @Test func passiveScanReportsEachAdvertisingEventAtItsTime() throws {
        let hrm = SimulatedDevices.heartRateMonitor(rssi: -47)
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        host.run(until: TestHost.ms(50))
        _ = try host.complete(HCI.LESetScanParameters(active: false))
        _ = try host.complete(HCI.LESetScanEnable(enable: true))
        let reports = try Self.reports(&host, until: TestHost.ms(350))
        // Events at 100 ms multiples (phase 0, interval 100 ms); the first one heard is at 100 ms.
        #expect(reports.map(\.time) == [TestHost.ms(100), TestHost.ms(200), TestHost.ms(300)])
        for (_, r) in reports {
            #expect(r.kind == .connectableUndirected)
            #expect(r.address == hrm.address)
            #expect(r.rssi == -47)
            let ad = try AdvertisingData(r.data)
            #expect(ad.name == "Vigil Sim HRM")
            #expect(ad.advertises(0x180D) && ad.advertises(0x180F))
            #expect(ad.flags == 0x06)
            #expect(ad.appearance == 0x0341)
        }
    }

    @Test func activeScanAddsScanResponsesAndDuplicatesAreKeptUnlessFiltered() throws {
        var host = TestHost(peripherals: [SimulatedDevices.heartRateMonitor()])
        try host.bringUp()
        _ = try host.complete(HCI.LESetScanParameters(active: true))
        _ = try host.complete(HCI.LESetScanEnable(enable: true, filterDuplicates: false))
        let unfiltered = try Self.reports(&host, until: TestHost.ms(250))
        #expect(unfiltered.map(\.report.kind) == [.connectableUndirected, .scanResponse, .connectableUndirected, .scanResponse, .connectableUndirected, .scanResponse])
        #expect(try AdvertisingData(unfiltered[1].report.data).txPower == 4)

        _ = try host.complete(HCI.LESetScanEnable(enable: false))
        _ = try host.complete(HCI.LESetScanEnable(enable: true, filterDuplicates: true))
        let filtered = try Self.reports(&host, until: TestHost.ms(800))
        #expect(filtered.map(\.report.kind) == [.connectableUndirected, .scanResponse])
    }

    @Test func noisyAdvertiserChangesDataEveryEventAndJittersRSSI() throws {
        let noisy = SimulatedDevices.noisyAdvertiser(address: Self.beacon, interval: .milliseconds(20), rssi: -80, rssiJitter: 6)
        var host = TestHost(peripherals: [noisy])
        try host.bringUp()
        _ = try host.complete(HCI.LESetScanParameters(active: true))
        _ = try host.complete(HCI.LESetScanEnable(enable: true))
        let reports = try Self.reports(&host, until: TestHost.ms(190))
        // Non-connectable: no SCAN_RSP even when active; events at 0, 20, ..., 180 ms.
        #expect(reports.count == 10)
        #expect(reports.allSatisfy { $0.report.kind == .nonConnectable })
        for (i, (time, r)) in reports.enumerated() {
            #expect(time == TestHost.ms(Int64(i) * 20))
            #expect(try AdvertisingData(r.data).manufacturerData(company: 0xFFFF) == [UInt8(i), 0, 0, 0])
            #expect((-86 ... -74).contains(r.rssi ?? 0))
        }
        #expect(Set(reports.map(\.report.rssi)).count > 1)
    }

    @Test func advertisersAreHeardInTimeOrderWithTheirOwnRSSI() throws {
        let hrm = SimulatedDevices.heartRateMonitor(rssi: -40)
        let noisy = SimulatedDevices.noisyAdvertiser(address: Self.beacon, interval: .milliseconds(70), rssi: -90, rssiJitter: 0, phase: .milliseconds(5))
        var host = TestHost(peripherals: [hrm, noisy])
        try host.bringUp()
        _ = try host.complete(HCI.LESetScanParameters(active: false))
        _ = try host.complete(HCI.LESetScanEnable(enable: true))
        let reports = try Self.reports(&host, until: TestHost.ms(210))
        #expect(reports.map(\.time) == [0, 5, 75, 100, 145, 200].map(TestHost.ms))
        #expect(reports.map(\.report.rssi) == [-40, -90, -90, -40, -90, -40])
    }

    @Test func masksSuppressReports() throws {
        var host = TestHost(peripherals: [SimulatedDevices.heartRateMonitor()])
        _ = try host.complete(HCI.Reset())
        _ = try host.complete(HCI.LESetRandomAddress(address: host.ownAddress))
        _ = try host.complete(HCI.LESetScanParameters(active: false))
        #expect(try host.complete(HCI.LESetScanEnable(enable: true)) == [0])
        // The default event mask (§7.3.1) leaves LE Meta (bit 61) off: nothing arrives.
        #expect(try Self.reports(&host, until: TestHost.ms(300)).isEmpty)
        _ = try host.complete(HCI.SetEventMask())
        #expect(try Self.reports(&host, until: TestHost.ms(400)).count == 1)
        // LE mask without bit 1 (Advertising Report).
        _ = try host.complete(HCI.LESetEventMask(mask: HCI.LESetEventMask.vigilDefault & ~2))
        #expect(try Self.reports(&host, until: TestHost.ms(700)).isEmpty)
    }

    @Test func scanningWithARandomAddressNeedsOne() throws {
        var host = TestHost()
        _ = try host.complete(HCI.SetEventMask())
        _ = try host.complete(HCI.LESetScanParameters(active: true, ownAddressType: .random))
        #expect(try host.complete(HCI.LESetScanEnable(enable: true)) == [0x12])
        #expect(try host.complete(HCI.LESetScanParameters(active: true, interval: 0x10, window: 0x20)) == [0x12])
    }

    @Test func connectionCompletesAtThePeersNextConnectableEvent() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        let other = SimulatedDevices.heartRateMonitor(address: DeviceAddress(Address(value: 0xC0_00_00_00_00_77), type: .random))
        var host = TestHost(peripherals: [hrm, other])
        try host.bringUp()
        host.run(until: TestHost.ms(30))
        _ = try host.send(HCI.LECreateConnection(peer: hrm.address, parameters: .init(intervalMin: 24, intervalMax: 40, latency: 0, supervisionTimeout: 400)))
        host.run(until: TestHost.ms(99))
        #expect(try host.events().isEmpty)
        host.run(until: TestHost.ms(100))
        let events = try host.events()
        #expect(events == [.le(.connectionComplete(HCI.LEConnectionComplete(
            status: .success, handle: 0x0040, role: .central, peer: hrm.address, interval: 24, latency: 0, supervisionTimeout: 400)))])
        let peripheral = try #require(host.controller.radio[hrm.address.address])
        #expect(peripheral.isConnected && !peripheral.isAdvertising)
        #expect(peripheral.events == [.connected(central: DeviceAddress(host.ownAddress, type: .random))])
        // Several links at once: the next handle is 0x0041.
        #expect(try host.connect(other.address) == 0x0041)
        #expect(host.controller.connectionHandles == [0x0040, 0x0041])
    }

    @Test func aConnectedPeripheralStopsAdvertising() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        _ = try host.connect(hrm.address)
        _ = try host.complete(HCI.LESetScanParameters(active: false))
        _ = try host.complete(HCI.LESetScanEnable(enable: true))
        #expect(try Self.reports(&host, until: host.now + .seconds(1)).isEmpty)
    }

    // MARK: ACL

    @Test func hostFragmentsAreReassembledAndEachGetsNumberOfCompletedPackets() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        // A 3-byte header + 40-byte value Write Request to the Control Point: 47-byte L2CAP frame
        // → fragments of 27 and 20 bytes.
        let controlPoint = try #require(hrm.valueHandle(of: 0x2A39))
        host.sendL2CAP(handle: handle, cid: 4, [0x12] + le16(controlPoint) + [0x01])
        let writeRequest: [UInt8] = [0x12] + le16(controlPoint) + [UInt8](repeating: 0x01, count: 40)
        host.sendL2CAP(handle: handle, cid: 4, writeRequest)
        let packets = try host.packets()
        let nocp = packets.compactMap { p -> [HCI.CompletedPackets]? in
            guard case .event(let b) = p, case .numberOfCompletedPackets(let e) = try? HCI.Event(bytes: b) else { return nil }
            return e
        }
        #expect(nocp == [[HCI.CompletedPackets(handle: handle, count: 1)], [HCI.CompletedPackets(handle: handle, count: 1)], [HCI.CompletedPackets(handle: handle, count: 1)]])
        // Both writes reached the server whole: the short one accepted, the long one refused by the HRS rule.
        #expect(host.controller.radio[hrm.address.address]?.attRequestsReceived == 2)
        #expect(host.controller.violations.isEmpty)
    }

    @Test func controllerFragmentsLongFramesToTheHost() throws {
        var configuration = SimulatedController.Configuration()
        configuration.hostBoundFragmentLength = 10
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(configuration: configuration, peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        // Read the 17-byte Manufacturer Name: 4 + 18 = 22-byte frame → 10 + 10 + 2.
        let name = try #require(hrm.valueHandle(of: 0x2A29))
        host.sendL2CAP(handle: handle, cid: 4, [0x0A] + le16(name))
        let acl = try host.packets().compactMap { p -> HCI.ACLData? in
            guard case .aclData(let b) = p else { return nil }
            return try HCI.ACLData(bytes: b)
        }
        #expect(acl.map(\.boundary) == [.firstFlushable, .continuing, .continuing])
        #expect(acl.map(\.data.count) == [10, 10, 2])
        #expect(acl.allSatisfy { $0.handle == handle })
        let frame = acl.flatMap(\.data)
        #expect(Array(frame[0..<4]) == le16(18) + le16(4))
        #expect(Array(frame[4...]) == [0x0B] + Array("Vigil Simulations".utf8))
    }

    @Test func aclMisuseIsReported() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        func send(_ acl: HCI.ACLData) { host.controller.receive(fromHost: [0x02] + acl.bytes, at: host.now) }
        send(HCI.ACLData(handle: handle, boundary: .continuing, data: [1, 2, 3]))
        send(HCI.ACLData(handle: handle, boundary: .firstNonFlushable, data: le16(10) + le16(4) + [1]))
        send(HCI.ACLData(handle: handle, boundary: .firstNonFlushable, data: le16(1) + le16(4) + [0x0A, 0xFF]))
        send(HCI.ACLData(handle: handle, boundary: .firstNonFlushable, data: [UInt8](repeating: 0, count: 28)))
        send(HCI.ACLData(handle: 0x0123, boundary: .firstNonFlushable, data: le16(0) + le16(4)))
        host.controller.receive(fromHost: [0x02, 0x40, 0x00, 0x05, 0x00, 0x01], at: host.now)
        #expect(host.controller.violations == [
            .continuationWithoutStart(handle: handle),
            .incompleteL2CAPFrameDropped(handle: handle),
            .l2capLengthExceeded(handle: handle),
            .aclLongerThanBuffer(handle: handle, length: 28),
            .l2capLengthExceeded(handle: handle),  // its L2CAP length field says 0
            .aclForUnknownHandle(0x0123),
            .malformedACL([0x40, 0x00, 0x05, 0x00, 0x01]),
        ])
    }

    @Test func aclBeyondTheControllersBuffersIsReported() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var configuration = SimulatedController.Configuration()
        configuration.totalNumLEACLDataPackets = 2
        var host = TestHost(configuration: configuration, peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        // Three packets without taking the Number Of Completed Packets events in between.
        for _ in 0..<3 { host.sendL2CAP(handle: handle, cid: 4, [0x02] + le16(23)) }
        #expect(host.controller.violations == [.aclWithoutBuffer(handle: handle)])
        _ = try host.packets()
        host.sendL2CAP(handle: handle, cid: 4, [0x02] + le16(23))
        #expect(host.controller.violations.count == 1)
    }
}
