import Testing
@testable import Readings

@Suite struct RRIntervalTests {
    // 1 tick = 1/1024 s (gatt-xml heart_rate_measurement.xml, docs/protocols/sig-heart-rate.md
    // §Heart Rate Measurement).
    @Test(arguments: [
        (ticks: UInt16(1024), seconds: 1.0, milliseconds: 1000.0),
        (ticks: 512, seconds: 0.5, milliseconds: 500.0),
        (ticks: 1, seconds: 0.0009765625, milliseconds: 0.9765625),
        (ticks: 874, seconds: 0.853515625, milliseconds: 853.515625),
        (ticks: 0xFFFF, seconds: 63.9990234375, milliseconds: 63999.0234375),
    ])
    func views(ticks: UInt16, seconds: Double, milliseconds: Double) {
        let interval = RRInterval(ticks: ticks)
        #expect(interval.seconds == seconds)
        #expect(interval.milliseconds == milliseconds)
    }

    @Test func durationIsExact() {
        #expect(RRInterval(ticks: 1024).duration == .seconds(1))
        // 1/1024 s = 976,562.5 ns = 976_562_500_000_000 attoseconds.
        #expect(RRInterval(ticks: 1).duration == Duration(secondsComponent: 0, attosecondsComponent: 976_562_500_000_000))
        #expect(RRInterval(ticks: 2049).duration == Duration(secondsComponent: 2, attosecondsComponent: 976_562_500_000_000))
        #expect(RRInterval(ticks: 512).duration == .milliseconds(500))
    }
}
