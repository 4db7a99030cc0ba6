import Bluetooth
import Clocks
import Testing
@testable import Simulator

@Suite struct SimulatedRadioTests {
    static let a = DeviceAddress(Address(value: 0xC0_00_00_00_00_0A), type: .random)
    static let b = DeviceAddress(Address(value: 0xC0_00_00_00_00_0B), type: .random)

    @Test func theEarliestAdvertiserIsNext() {
        var radio = SimulatedRadio()
        radio.add(SimulatedDevices.noisyAdvertiser(address: Self.a, interval: .milliseconds(100), phase: .milliseconds(40)))
        radio.add(SimulatedDevices.noisyAdvertiser(address: Self.b, interval: .milliseconds(30)))
        let next = radio.nextAdvertisingEvent(atOrAfter: MonotonicInstant(nanoseconds: 31_000_000))
        #expect(next?.peripheral == 0)
        #expect(next?.index == 0)
        #expect(next?.time == MonotonicInstant(nanoseconds: 40_000_000))
        let after = radio.nextAdvertisingEvent(atOrAfter: MonotonicInstant(nanoseconds: 41_000_000))
        #expect(after?.peripheral == 1)
        #expect(after?.index == 2)
        #expect(after?.time == MonotonicInstant(nanoseconds: 60_000_000))
    }

    @Test func silentPeripheralsAreSkipped() {
        var radio = SimulatedRadio(peripherals: [SimulatedDevices.noisyAdvertiser(address: Self.a)])
        radio[Self.a.address]?.vanish()
        #expect(radio.nextAdvertisingEvent(atOrAfter: .zero) == nil)
        radio[Self.a.address]?.reappear(at: MonotonicInstant(nanoseconds: 5))
        #expect(radio.nextAdvertisingEvent(atOrAfter: .zero)?.time == MonotonicInstant(nanoseconds: 5))
        radio[Self.a.address]?.isAdvertisingEnabled = false
        #expect(radio.nextAdvertisingEvent(atOrAfter: .zero) == nil)
    }

    @Test func subscriptFindsAndRemovesByAddress() {
        var radio = SimulatedRadio(peripherals: [SimulatedDevices.noisyAdvertiser(address: Self.a), SimulatedDevices.noisyAdvertiser(address: Self.b)])
        radio[Self.a.address]?.rssi = -33
        #expect(radio.peripherals[0].rssi == -33)
        #expect(radio[Address(value: 1)] == nil)
        radio[Self.a.address] = nil
        #expect(radio.peripherals.map(\.address) == [Self.b])
        #expect(radio.index(of: Self.b) == 0)
        #expect(radio.index(of: DeviceAddress(Self.b.address, type: .public)) == nil)
    }
}
