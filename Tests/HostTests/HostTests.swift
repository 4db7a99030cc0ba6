import Bluetooth
import Clocks
import HCI
import SMP
import Simulator
import Testing
@testable import Host

/// The `Host` value as its owner drives it: commands before the controller is ready, transport
/// loss, deadlines, and determinism on the virtual clock.
@Suite struct HostTests {
    @Test func ownerCommandsBeforeBringUpWaitForTheController() throws {
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor()])
        // Asked before start: nothing may go out but bring-up.
        world.host.startScanning(active: true, at: world.now)
        world.host.connect(HRM.address, at: world.now)
        world.pump()
        #expect(world.sent.isEmpty)
        #expect(world.host.isConnecting)
        world.start()
        world.run(until: { $0.host.handle(for: HRM.address) != nil }, within: .seconds(5))
        #expect(Array(world.sentCommands.map(\.opcode).prefix(HostControllerTests.bringUp.count)) == HostControllerTests.bringUp)
        #expect(world.host.handle(for: HRM.address) == 0x0040)
        #expect(world.host.isScanning)
        world.expectHealthy()
    }

    @Test func connectingTwiceToTheSamePeerIsOneAttempt() throws {
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor()])
        world.start()
        world.host.connect(HRM.address, at: world.now)
        world.host.connect(HRM.address, at: world.now)
        world.pump()
        world.advance(by: .milliseconds(10))
        world.host.connect(HRM.address, at: world.now)  // already connected: nothing to do
        world.pump()
        #expect(world.sentCommands(HCI.LECreateConnection.self).count == 1)
        #expect(world.events.filter { if case .connected = $0 { true } else { false } }.count == 1)
        world.expectHealthy()
    }

    @Test func losingTheTransportReportsEveryConnectionAndPendingWork() throws {
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor(address: HRM.address(1))])
        world.start()
        let outcome1 = world.connect(HRM.address(1))
        let handle = try #require(outcome1)
        world.controller.radio[HRM.address(1).address]?.hostileATT.ignoresRequests = true
        let pending = world.gatt(.read(handle: HRM.bodySensorLocation), on: handle)
        let ghost = HRM.address(0x55)
        world.host.connect(ghost, at: world.now)
        world.pump()
        world.host.controllerLost("end of stream", at: world.now)
        world.pump()
        #expect(world.result(of: pending) == .failed(.disconnected))
        #expect(world.disconnection(handle) == .hardwareFailure)
        #expect(world.connectionFailure(ghost) == "controller lost")
        #expect(!world.host.isReady)
        #expect(world.host.nextDeadline == nil)
        // Nothing is sent until the owner restarts.
        let sentBefore = world.sent.count
        world.host.startScanning(active: false, at: world.now)
        world.pump()
        #expect(world.sent.count == sentBefore)
    }

    @Test func deadlinesAreNeverLeftInThePast() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        world.controller.radio[HRM.address.address]?.hostileATT.ignoresRequests = true
        world.gatt(.read(handle: HRM.bodySensorLocation), on: handle)
        world.host.connect(HRM.address(0x66), at: world.now)
        world.pump()
        // Step through a minute of deadlines; after each, the host's next deadline is later.
        let end = world.now + .seconds(60)
        var steps = 0
        while world.step(notAfter: end) {
            steps += 1
            if let next = world.host.nextDeadline { #expect(next > world.now) }
            if steps > 10_000 { break }
        }
        #expect(steps < 10_000)
        world.expectHealthy()
    }

    @Test func theSameInputsGiveTheSameBytes() {
        func session() -> [[UInt8]] {
            var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
            world.startScanning(active: true)
            _ = world.perform(.discoverDatabase, on: handle)
            _ = world.perform(.write(handle: HRM.heartRateCCCD, value: [0x01, 0x00]), on: handle)
            world.advance(by: .seconds(3))
            return world.sent.map(\.h4)
        }
        let a = session()
        #expect(a.count > 20)
        #expect(a == session())
    }

    @Test func wallClockDatesNewBonds() throws {
        var (world, handle) = SimulatedWorld.connected(to: [
            SimulatedDevices.heartRateMonitor(securityFactory: SMPPeripheralSecurity.factory()),
        ])
        world.host.wallClock = WallClockTime(secondsSinceEpoch: 1_795_350_000)
        world.secure(handle)
        world.run(until: { $0.pairedBond(handle) != nil }, within: .seconds(40))
        #expect(world.host.bonds.bond(for: HRM.address)?.created == WallClockTime(secondsSinceEpoch: 1_795_350_000))
        world.expectHealthy()
    }

    @Test func anHourOfNotificationsOnTheVirtualClock() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        let heartRate = world.perform(.write(handle: HRM.heartRateCCCD, value: [0x01, 0x00]), on: handle)
        let battery = world.perform(.write(handle: HRM.batteryCCCD, value: [0x01, 0x00]), on: handle)
        #expect(heartRate == .written)
        #expect(battery == .written)
        world.advance(by: .seconds(3600))
        let notifications = world.notifications(on: handle)
        let rates = notifications.filter { $0.attribute == HRM.heartRateMeasurement }
        let levels = notifications.filter { $0.attribute == HRM.batteryLevel }
        // One heart-rate value a second and one battery level a minute, each as the device computed it.
        #expect(rates.count == 3600)
        #expect(levels.count == 60)
        #expect(levels.first?.value == [100])
        #expect(levels.last?.value == SimulatedDevices.batteryLevel(at: .zero + .seconds(3600)))
        #expect(levels.last?.value == [94])
        #expect(world.host.nextDeadline == nil)  // nothing pending in the host after an idle hour
        world.expectHealthy()
    }
}
