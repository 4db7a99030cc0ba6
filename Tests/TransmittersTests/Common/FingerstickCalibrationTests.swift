import Readings
import Testing
@testable import Transmitters

@Suite struct FingerstickCalibrationTests {
    /// xDrip+ `Calibration.getConvertedBg`: `(bg < 40) || (bg > 400)` → no calibration. The
    /// edges calibrate; one past them does not.
    @Test(arguments: [(39.9, false), (40, true), (120, true), (400, true), (400.1, false), (20, false), (600, false)])
    func acceptedReference(mgdl: Double, accepted: Bool) {
        #expect((FingerstickCalibration.refusal(of: GlucoseConcentration(milligramsPerDeciliter: mgdl)) == nil) == accepted)
    }

    /// By hand: (1, 2), (2, 4), (3, 9) → means 2 and 5, sxx 2, sxy 7 → slope 3.5, intercept −2.
    @Test func leastSquaresByHand() throws {
        let line = try #require(FingerstickCalibration.leastSquares([(x: 1, y: 2), (x: 2, y: 4), (x: 3, y: 9)]))
        #expect(line.slope == 3.5)
        #expect(line.intercept == -2)
    }

    @Test func noLineWithoutSpreadInX() {
        #expect(FingerstickCalibration.leastSquares([(x: 1, y: 2)]) == nil)
        #expect(FingerstickCalibration.leastSquares([(x: 1, y: 2), (x: 1, y: 4)]) == nil)
        #expect(FingerstickCalibration.leastSquares([(x: .nan, y: 2), (x: 1, y: 4)]) == nil)
    }
}
