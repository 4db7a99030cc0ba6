import App
import Bluetooth
import Clocks
import Readings
import Simulator
import Testing
import Transmitters

/// `Appliance.links(at:)` against the simulated radio on a virtual clock, and the status board
/// fed the same world's events: what `vigil status` shows for a strap that is found,
/// connected and notifying, and for a thermometer that is only heard.
@Suite struct ApplianceStatusLinksTests {
    static func world() throws -> ApplianceWorld {
        let thermometer = try BroadcastRegistry.builtIn.makeDecoder(TransmitterConfiguration(typeName: "bthome", device: "fridge"))
        return ApplianceWorld(devices: [try ApplianceWorld.heartRate(), Appliance.Device(decoder: thermometer)],
                              peripherals: [SimulatedDevices.heartRateMonitor(), SimulatedThermometer.bthome()])
    }

    @Test func searchingUntilFoundThenConnectedForAsLongAsTheLinkLasts() throws {
        var world = try Self.world()
        let before = world.appliance.links(at: world.now)
        #expect(before.map(\.device) == ["strap", "fridge"])
        #expect(before.map(\.link) == [.searching, .listeningForAdvertisements])
        #expect(before.map(\.peer) == [nil, nil])

        world.start()
        #expect(world.advance(until: .seconds(10)) { $0.transmitterEvents { $0 == .connected } == 1 })
        let connectedAt = world.now
        world.advance(by: .seconds(5))
        let after = world.appliance.links(at: world.now)
        guard case let .connected(for: duration)? = after.first?.link else {
            Issue.record("strap not connected: \(after)")
            return
        }
        // Connected at most 5 s after it was reported (the link came up within the last step).
        #expect(duration.map { $0 >= .seconds(5) && $0 <= world.now - connectedAt + .milliseconds(100) } == true)
        #expect(after[0].peer == ApplianceWorld.hrmAddress)
        #expect(after[1].link == .listeningForAdvertisements)
        #expect(after[1].peer == SimulatedThermometer.defaultAddress)
    }

    @Test func theBoardFedTheWorldsEventsShowsTheLastReadings() throws {
        var world = try Self.world()
        var board = StatusBoard(version: "t", startedAt: world.now, devices: [.init(id: "strap", kind: "heart-rate"), .init(id: "fridge", kind: "bthome")])
        world.start()
        var seen = 0
        for _ in 0..<100 {
            world.advance(by: .milliseconds(100))
            for event in world.events[seen...] { board.observe(event, at: world.now) }
            seen = world.events.count
        }
        let status = board.snapshot(links: world.appliance.links(at: world.now), alarms: [], history: nil, at: world.now,
                                    wallNow: WallClockTime(secondsSinceEpoch: 1_800_000_000))
        // Up since the first step's events were observed (the board sees them 100 ms at a time).
        guard case let .up(for: up) = status.controller else {
            Issue.record("controller not up: \(status.controller)")
            return
        }
        #expect(up <= status.uptime && up >= status.uptime - .milliseconds(100))
        let strap = status.devices[0]
        #expect(strap.address == "\(ApplianceWorld.hrmAddress.address)")
        // The newest heart-rate value the strap sent is the one shown, less than a second old
        // (it notifies once a second).
        let lastRate = world.readings.flatMap { $0 }.last { $0.kind == .heartRate }
        guard case let .heartRate(bpm, _)? = lastRate?.value, let shown = strap.readings.first(where: { $0.kind == .heartRate }) else {
            Issue.record("no heart rate: \(status.text)")
            return
        }
        #expect(shown.value == Double(bpm.value) && shown.unit == "bpm")
        #expect(shown.age < .seconds(1))
        let fridge = status.devices[1]
        #expect(fridge.link == .listeningForAdvertisements)
        #expect(Set(fridge.readings.map(\.kind)) == [.temperature, .humidity])
        #expect(fridge.battery != nil)
    }
}
