import Bluetooth
import Clocks
import Testing
@testable import Simulator

struct RangeOutageTests {
    static let hrm = SimulatedDevices.heartRateMonitor()
    static func at(_ seconds: Int64) -> MonotonicInstant { .zero + .seconds(seconds) }

    @Test func sendsThePeripheralAwayForTheStretchAndBringsItBack() {
        var controller = SimulatedController(radio: SimulatedRadio(peripherals: [Self.hrm]))
        var outage = RangeOutage(address: Self.hrm.address.address, windows: [Self.at(100)..<Self.at(200)])
        #expect(outage.nextDeadline == Self.at(100))
        outage.apply(to: &controller, at: Self.at(50))
        #expect(controller.radio[Self.hrm.address.address]?.isInRange == true)
        #expect(!outage.isHolding)
        outage.apply(to: &controller, at: Self.at(100))
        #expect(controller.radio[Self.hrm.address.address]?.isInRange == false)
        #expect(outage.isHolding)
        #expect(outage.nextDeadline == Self.at(200))
        outage.apply(to: &controller, at: Self.at(200))
        #expect(controller.radio[Self.hrm.address.address]?.isInRange == true)
        #expect(controller.radio[Self.hrm.address.address]?.isAdvertising == true)
        #expect(!outage.isHolding)
        #expect(outage.nextDeadline == nil)
    }

    /// A model that brings its device back by itself inside the stretch (a Dexcom waking from
    /// its sleep) is overruled at the next apply.
    @Test func keepsItAwayWhenSomethingElseBringsItBack() {
        var controller = SimulatedController(radio: SimulatedRadio(peripherals: [Self.hrm]))
        var outage = RangeOutage(address: Self.hrm.address.address, windows: [Self.at(100)..<Self.at(200)])
        outage.apply(to: &controller, at: Self.at(100))
        controller.radio[Self.hrm.address.address]?.reappear(at: Self.at(150))
        outage.apply(to: &controller, at: Self.at(150))
        #expect(controller.radio[Self.hrm.address.address]?.isInRange == false)
    }

    /// Out of range after the stretch only if something else took it away: the outage brings
    /// back only what it sent away.
    @Test func leavesAloneWhatItDidNotSendAway() {
        var controller = SimulatedController(radio: SimulatedRadio(peripherals: [Self.hrm]))
        var outage = RangeOutage(address: Self.hrm.address.address, windows: [Self.at(100)..<Self.at(200)])
        controller.radio[Self.hrm.address.address]?.vanish()
        outage.apply(to: &controller, at: Self.at(300))
        #expect(controller.radio[Self.hrm.address.address]?.isInRange == false)
        #expect(outage.isOutOfRange(at: Self.at(199)))
        #expect(!outage.isOutOfRange(at: Self.at(200)))
        #expect(!outage.isOutOfRange(at: Self.at(99)))
    }

    /// A connected peripheral that goes out of range loses its link at the supervision timeout.
    @Test func aConnectionIsLostWhenTheStretchStarts() throws {
        var host = TestHost(peripherals: [Self.hrm])
        try host.bringUp()
        let handle = try host.connect(Self.hrm.address)
        var outage = RangeOutage(address: Self.hrm.address.address, windows: [host.now..<(host.now + .seconds(60))])
        outage.apply(to: &host.controller, at: host.now)
        host.run(until: host.now + .seconds(10))
        let disconnections = try host.events().compactMap { event -> UInt16? in
            if case let .disconnectionComplete(complete) = event { return complete.handle }
            return nil
        }
        #expect(disconnections == [handle])
        #expect(host.controller.connectionHandles.isEmpty)
    }
}
