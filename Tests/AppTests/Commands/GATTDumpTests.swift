import App
import Bluetooth
import Clocks
import Host
import Simulator
import Testing

/// `vigil gatt` against the simulated heart-rate monitor, on a virtual clock.
@Suite struct GATTDumpTests {
    struct World {
        var host: Host
        var controller: SimulatedController
        var dump: GATTDump
        var now = MonotonicInstant(nanoseconds: 1_000_000_000)

        init(peripheral: SimulatedPeripheral, addressType: AddressType?, pair: Bool = false) {
            host = Host(configuration: Host.Configuration(staticAddress: Address(value: 0xC1_02_03_04_05_06)), random: CountingRandom())
            controller = SimulatedController(radio: SimulatedRadio(peripherals: [peripheral]))
            dump = GATTDump(address: ApplianceWorld.hrmAddress.address, addressType: addressType, pairIfNeeded: pair, scanTimeout: .seconds(10), at: now)
        }

        mutating func run(for duration: Duration) {
            host.start(at: now)
            let end = now + duration
            while !dump.isFinished && now < end {
                for _ in 0..<100_000 {
                    var moved = false
                    for output in host.takeOutputs() {
                        moved = true
                        switch output {
                        case .send(let packet): controller.receive(fromHost: packet, at: now)
                        case .event(let event):
                            dump.handle(event, host: &host, at: now)
                            if case .controllerReady = event { dump.start(host: &host, at: now) }
                        }
                    }
                    for packet in controller.takePacketsForHost() {
                        moved = true
                        host.receive(packet, at: now)
                    }
                    if !moved { break }
                }
                guard let next = earliest(host.nextDeadline, controller.nextDeadline, dump.nextDeadline) else { break }
                now = max(now, min(next, end))
                host.handleDeadline(at: now)
                controller.handleDeadline(at: now)
                dump.handleDeadline(host: &host, at: now)
            }
        }
    }

    @Test func listsTheWholeDatabaseWithReadableValues() throws {
        var world = World(peripheral: SimulatedDevices.heartRateMonitor(), addressType: nil)
        world.run(for: .seconds(20))
        #expect(world.dump.state == .done)
        let db = try #require(world.dump.database)
        #expect(db.services.map(\.uuid).contains(BluetoothUUID(0x180D)))
        let location = try #require(db.characteristic(BluetoothUUID(0x2A38)))
        #expect(world.dump.values[location.valueHandle] == [0x01])
        let manufacturer = try #require(db.characteristic(BluetoothUUID(0x2A29)))
        #expect(world.dump.values[manufacturer.valueHandle] == Array("Vigil Simulations".utf8))
        let text = world.dump.text()
        #expect(text.contains("characteristic 2A37 Heart Rate Measurement"))
        #expect(text.contains("\"Vigil Simulations\""))
        #expect(world.dump.json().rendered.contains(#""uuid":"2A29","name":"Manufacturer Name String""#))
    }

    @Test func aDeviceThatIsNotAroundFailsWithAReason() {
        var world = World(peripheral: SimulatedDevices.noisyAdvertiser(address: DeviceAddress(Address(value: 0xD0_00_00_00_00_01), type: .random)), addressType: nil)
        world.run(for: .seconds(20))
        guard case .failed(let reason) = world.dump.state else { Issue.record("state \(world.dump.state)"); return }
        #expect(reason.contains("was not seen advertising"))
    }
}
