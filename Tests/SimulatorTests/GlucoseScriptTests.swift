import Clocks
import Testing
import Transmitters
@testable import Simulator

struct GlucoseScriptTests {
    static func minutes(_ m: Int64) -> Duration { .seconds(m * 60) }
    static let night = GlucoseScript([
        // Given out of order on purpose: the script sorts its knots.
        .init(at: minutes(75), milligramsPerDeciliter: 45),
        .init(at: minutes(0), milligramsPerDeciliter: 110),
        .init(at: minutes(50), milligramsPerDeciliter: 110),
        .init(at: minutes(100), milligramsPerDeciliter: 45),
    ])

    /// (minute, mg/dL) on the night script.
    static let expectations: [(minute: Int64, milligramsPerDeciliter: Double)] = [
        (-120, 110),           // before the first knot: flat at its value
        (0, 110), (50, 110),
        (60, 84),              // 110 - 65 × 10/25
        (75, 45), (90, 45), (100, 45),
        (500, 45),             // after the last knot: flat at its value
    ]

    @Test(arguments: expectations)
    func straightLinesBetweenKnots(expectation: (minute: Int64, milligramsPerDeciliter: Double)) {
        #expect(abs(Self.night.milligramsPerDeciliter(at: Self.minutes(expectation.minute)) - expectation.milligramsPerDeciliter) < 1e-9)
    }

    @Test func knotsAreSortedAndAnEmptyScriptIsFlat() {
        #expect(Self.night.knots.map(\.at) == [0, 50, 75, 100].map { Self.minutes($0) })
        #expect(GlucoseScript([]).milligramsPerDeciliter(at: .seconds(42)) == 100)
    }

    /// Reading k of a session that started two hours before virtual zero is taken at
    /// k × 5 min − 2 h: reading 24 is at zero, reading 39 at 01:15, the bottom of the night.
    @Test func asADexcomCurveReadingsLandOnTheirVirtualTime() {
        let curve = Self.night.curve(sessionAge: .seconds(7200))
        #expect(curve.milligramsPerDeciliter(atReading: 0) == 110)   // −2 h, before the script
        #expect(curve.milligramsPerDeciliter(atReading: 24) == 110)  // 00:00
        #expect(curve.milligramsPerDeciliter(atReading: 36) == 84)   // 01:00
        #expect(curve.milligramsPerDeciliter(atReading: 39) == 45)   // 01:15
    }

    /// The simulated transmitter reports the script: glucose and trend (0.1 mg/dL/min) of the
    /// reading at 01:00, falling 2.6 mg/dL a minute.
    @Test func aSimulatedDexcomFollowsTheScript() throws {
        let dexcom = SimulatedDexcom(id: try Dexcom.TransmitterID("811234"), transmitterAge: 1_000_000, sessionAge: 7200,
                                     curve: Self.night.curve(sessionAge: .seconds(7200)))
        let (glucose, trend) = dexcom.glucose(at: 1_000_000 + 3600)
        #expect(glucose == 84)
        #expect(trend == -26)
    }
}
