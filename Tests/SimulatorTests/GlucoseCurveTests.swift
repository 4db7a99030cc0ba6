import Testing
@testable import Simulator

struct GlucoseCurveTests {
    @Test func sineApproximation() {
        #expect(abs(GlucoseCurve.sine(.pi / 2) - 1) < 0.002)
        #expect(abs(GlucoseCurve.sine(.pi / 6) - 0.5) < 0.002)
        #expect(abs(GlucoseCurve.sine(-.pi / 2) + 1) < 0.002)
        #expect(abs(GlucoseCurve.sine(3 * .pi / 2) + 1) < 0.002)
    }

    @Test func gentleStaysInRangeAndStartsMidway() {
        #expect(GlucoseCurve.gentle.milligramsPerDeciliter(atReading: 0) == 130)
        let values = (0..<200).map { GlucoseCurve.gentle.milligramsPerDeciliter(atReading: Double($0)) }
        #expect(values.min()! >= 70 && values.max()! <= 190)
    }

    @Test func recoveringFromLowFallsToFiftyThenRises() {
        let curve = GlucoseCurve.recoveringFromLow(atReading: 24)
        #expect(curve.milligramsPerDeciliter(atReading: 20) == 66)
        #expect(curve.milligramsPerDeciliter(atReading: 24) == 50)
        #expect(curve.milligramsPerDeciliter(atReading: 25) == 60)
        #expect(curve.milligramsPerDeciliter(atReading: 27) == 80)
    }

    @Test func clampedToWhatADexcomReports() {
        let wild = GlucoseCurve { $0 * 100 - 50 }
        #expect(wild.milligramsPerDeciliter(atReading: 0) == 40)
        #expect(wild.milligramsPerDeciliter(atReading: 10) == 400)
    }
}
