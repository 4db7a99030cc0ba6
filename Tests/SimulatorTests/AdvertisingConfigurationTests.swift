import Clocks
import Testing
@testable import Simulator

@Suite struct AdvertisingConfigurationTests {
    static func ms(_ v: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: v * 1_000_000) }

    /// Events at anchor + n × 100 ms; the first at or after t.
    @Test(arguments: [
        (Int64(0), Int64(0), UInt64(0), Int64(0)),   // before/at the anchor → event 0
        (50, 0, 1, 100),
        (100, 0, 1, 100),                             // exactly on an event
        (101, 0, 2, 200),
        (0, 30, 0, 30),                               // anchor in the future
        (131, 30, 2, 230),
    ])
    func firstEventAtOrAfter(_ t: Int64, _ anchor: Int64, _ index: UInt64, _ time: Int64) {
        let config = AdvertisingConfiguration(interval: .milliseconds(100), data: [])
        let event = config.firstEvent(atOrAfter: Self.ms(t), anchor: Self.ms(anchor))
        #expect(event.index == index)
        #expect(event.time == Self.ms(time))
    }

    @Test func rssiJitterStaysWithinBoundsAndIsRepeatable() {
        let config = AdvertisingConfiguration(data: [], rssiJitter: 5)
        let values = (0..<200).map { config.rssi(base: -70, event: UInt64($0)) }
        #expect(values.allSatisfy { (-75 ... -65).contains($0) })
        #expect(Set(values).count > 5)
        #expect(values == (0..<200).map { config.rssi(base: -70, event: UInt64($0)) })
        #expect(AdvertisingConfiguration(data: []).rssi(base: -70, event: 9) == -70)
        #expect(AdvertisingConfiguration(data: [], rssiJitter: 10).rssi(base: -125, event: 3) >= -128)
    }

    @Test func dataCanChangePerEvent() {
        let config = AdvertisingConfiguration(data: [1], dataForEvent: { [UInt8(truncatingIfNeeded: $0)] })
        #expect(config.data(forEvent: 7) == [7])
        #expect(AdvertisingConfiguration(data: [1]).data(forEvent: 7) == [1])
    }
}
