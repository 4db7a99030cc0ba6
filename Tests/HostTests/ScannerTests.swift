import Bluetooth
import Clocks
import HCI
import Simulator
import Testing
@testable import Host

/// Scanning against the simulated radio: active and passive, duplicate folding, scan response
/// merging (Core v5.4 Vol 3 Part C §11), legacy and extended reports, and the device cap.
@Suite struct ScannerTests {
    static func advertisements(_ world: SimulatedWorld, from address: DeviceAddress) -> [Advertisement] {
        world.events.compactMap { if case .advertisement(let a) = $0, a.address == address { a } else { nil } }
    }

    @Test func activeScanReportsTheDeviceThenMergesItsScanResponseOnce() throws {
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor()])
        world.start()
        world.startScanning(active: true)
        #expect(world.host.isScanning)
        let parameters = try #require(world.sentCommands(HCI.LESetScanParameters.self).last)
        #expect(parameters.active)
        #expect(world.sentCommands(HCI.LESetScanEnable.self).last == HCI.LESetScanEnable(enable: true, filterDuplicates: false))

        // 100 ms interval from t = 0: twenty advertising events in two seconds.
        world.advance(by: .seconds(2))
        let reports = Self.advertisements(world, from: HRM.address)
        #expect(reports.count == 2)
        let first = try #require(reports.first)
        #expect(first.isNew)
        #expect(first.isConnectable)
        #expect(first.scanResponse == nil)
        #expect(first.name == "Vigil Sim HRM")
        #expect(first.serviceUUIDs == [BluetoothUUID(0x180D), BluetoothUUID(0x180F)])
        #expect(first.appearance == 0x0341)
        #expect(first.rssi == -55)
        let merged = try #require(reports.last)
        #expect(!merged.isNew)
        // TX Power Level AD structure (CSS Part A §1.5): length 2, type 0x0A, +4 dBm.
        #expect(merged.scanResponse == [0x02, 0x0A, 0x04])
        #expect(merged.advertisingData == first.advertisingData)
        #expect(merged.isConnectable)
        #expect(world.host.lastSeen(HRM.address) == .zero + .milliseconds(2000))
        world.expectHealthy()
    }

    @Test func passiveScanSendsNoScanRequestsAndReportsOnce() throws {
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor()])
        world.start()
        world.startScanning(active: false)
        world.advance(by: .seconds(2))
        let reports = Self.advertisements(world, from: HRM.address)
        #expect(reports.count == 1)
        #expect(reports.first?.scanResponse == nil)
        #expect(try #require(world.sentCommands(HCI.LESetScanParameters.self).last).active == false)
        world.expectHealthy()
    }

    @Test func switchingFromPassiveToActiveRestartsTheScan() throws {
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor()])
        world.start()
        world.startScanning(active: false)
        world.advance(by: .milliseconds(150))
        world.startScanning(active: true)
        world.advance(by: .milliseconds(150))
        let enables = world.sentCommands(HCI.LESetScanEnable.self).map(\.enable)
        // The first "off" is bring-up's, for controllers whose Reset leaves a scan running.
        #expect(enables == [false, true, false, true])
        #expect(world.sentCommands(HCI.LESetScanParameters.self).map(\.active) == [false, true])
        // The scan response now arrives and is merged into the known device.
        #expect(Self.advertisements(world, from: HRM.address).last?.scanResponse == [0x02, 0x0A, 0x04])
        world.stopScanning()
        #expect(!world.host.isScanning)
        #expect(!world.controller.isScanning)
        world.expectHealthy()
    }

    @Test func changingTheScanModeWhileItStartsSettlesOnTheLastWish() throws {
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor()])
        world.start()
        world.host.startScanning(active: false, at: world.now)
        world.host.startScanning(active: true, at: world.now)
        world.pump()
        #expect(world.host.isScanning)
        #expect(world.sentCommands(HCI.LESetScanParameters.self).last?.active == true)
        // And a stop asked while starting ends with the controller not scanning.
        world.host.stopScanning(at: world.now)
        world.host.startScanning(active: false, at: world.now)
        world.host.stopScanning(at: world.now)
        world.pump()
        #expect(!world.host.isScanning)
        #expect(!world.controller.isScanning)
        world.expectHealthy()
    }

    @Test func aChangedAdvertisementIsReportedAgain() throws {
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor()])
        world.start()
        world.startScanning(active: false)
        world.advance(by: .seconds(1))
        #expect(Self.advertisements(world, from: HRM.address).count == 1)
        // The device changes its name: the data differs, so it is news again.
        var ad = AdvertisingData.Builder()
        ad.flags(0x06)
        ad.completeName("Vigil Sim HRM 2")
        world.controller.radio[HRM.address.address]?.advertising.data = ad.bytes
        world.advance(by: .seconds(1))
        let reports = Self.advertisements(world, from: HRM.address)
        #expect(reports.count == 2)
        #expect(reports.last?.name == "Vigil Sim HRM 2")
        #expect(reports.last?.isNew == false)
        world.expectHealthy()
    }

    @Test func aNoisyAdvertiserIsReportedOnEveryChange() {
        let address = DeviceAddress(Address(value: 0xC1_00_00_00_00_01), type: .random)
        var world = SimulatedWorld(peripherals: [SimulatedDevices.noisyAdvertiser(address: address, interval: .milliseconds(20))])
        world.start()
        world.startScanning(active: true)
        world.advance(by: .milliseconds(990))
        // Events at 0, 20, …, 980 ms: fifty, each with a new counter in its manufacturer data.
        let reports = Self.advertisements(world, from: address)
        #expect(reports.count == 50)
        #expect(reports.allSatisfy { !$0.isConnectable })
        #expect(Set(reports.map(\.advertisingData)).count == 50)
        // Non-scannable: no scan response even when scanning actively.
        #expect(reports.allSatisfy { $0.scanResponse == nil })
        world.expectHealthy()
    }

    @Test func theDeviceTableIsCappedAt256WithTheLeastRecentlySeenEvicted() {
        // 300 noisy advertisers, each 50 µs after the previous, so every report has its own instant.
        let addresses = (0..<300).map { DeviceAddress(Address(value: 0xC2_00_00_00_00_00 | UInt64($0)), type: .random) }
        let noisy = addresses.enumerated().map { i, address in
            SimulatedDevices.noisyAdvertiser(address: address, interval: .milliseconds(20), phase: .microseconds(50 * i))
        }
        var world = SimulatedWorld(peripherals: noisy)
        world.start()
        world.startScanning(active: false)
        world.advance(by: .milliseconds(39))  // two full rounds of all 300
        #expect(world.host.scanner.devices.count == Scanner.maximumDevices)
        // The most recent 256 are kept; the first 44 of the last round were evicted since.
        #expect(world.host.lastSeen(addresses[299]) != nil)
        #expect(world.host.lastSeen(addresses[44]) != nil)
        #expect(world.host.lastSeen(addresses[43]) == nil)
        #expect(world.host.lastSeen(addresses[0]) == nil)
        // Each round every device is new again (evicted, then seen): 600 reports, all isNew.
        let reports = world.events.compactMap { if case .advertisement(let a) = $0 { a } else { nil } }
        #expect(reports.count == 600)
        #expect(reports.allSatisfy { $0.isNew })
        world.expectHealthy()
    }

    @Test func extendedReportsAreFoldedLikeLegacyOnes() throws {
        var world = SimulatedWorld()
        world.start()
        world.startScanning(active: true)
        // LE Extended Advertising Report (§7.7.65.13), hand-built: Event_Type 0x0013 (legacy ADV_IND:
        // connectable, scannable, legacy), random address C3:00:00:00:00:07, PHY 1/0, SID 0xFF,
        // TX power 127, RSSI -70 (0xBA), no periodic interval, no direct address, data "flags 06".
        func report(eventType: UInt16, data: [UInt8]) -> [UInt8] {
            var body: [UInt8] = [0x0D, 0x01, UInt8(eventType & 0xFF), UInt8(eventType >> 8), 0x01, 0x07, 0, 0, 0, 0, 0xC3]
            body += [0x01, 0x00, 0xFF, 0x7F, 0xBA, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, UInt8(data.count)] + data
            return [0x04, 0x3E, UInt8(body.count)] + body
        }
        world.controller.injectTowardHost(report(eventType: 0x0013, data: [0x02, 0x01, 0x06]))
        world.pump()
        // The same again: a duplicate, folded away.
        world.controller.injectTowardHost(report(eventType: 0x0013, data: [0x02, 0x01, 0x06]))
        world.pump()
        // Its scan response (0x001B: connectable, scannable, scan response, legacy).
        world.controller.injectTowardHost(report(eventType: 0x001B, data: [0x02, 0x0A, 0x00]))
        world.pump()
        let address = DeviceAddress(Address(value: 0xC3_00_00_00_00_07), type: .random)
        let reports = Self.advertisements(world, from: address)
        #expect(reports.count == 2)
        let first = try #require(reports.first)
        #expect(first.isConnectable)
        #expect(first.rssi == -70)
        #expect(first.advertisingData == [0x02, 0x01, 0x06])
        #expect(reports.last?.scanResponse == [0x02, 0x0A, 0x00])
        world.expectHealthy()
    }

    @Test func reportsArriveOnlyWhileScanning() {
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor()])
        world.start()
        // A legacy report injected while not scanning (a late one after Scan Enable off) is ignored.
        world.controller.injectTowardHost([0x04, 0x3E, 0x0C, 0x02, 0x01, 0x00, 0x01, 0x55, 0x44, 0x33, 0x22, 0x11, 0xC0, 0x00, 0xC4])
        world.advance(by: .seconds(1))
        #expect(ScannerTests.advertisements(world, from: HRM.address).isEmpty)
        world.expectHealthy()
    }
}
