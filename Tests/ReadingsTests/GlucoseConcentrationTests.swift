import Testing
@testable import Readings

@Suite struct GlucoseConcentrationTests {
    // Factor 18.0182 mg/dL per mmol/L (molar mass of glucose 180.182 g/mol / 10).
    @Test(arguments: [
        (mgdl: 180.182, mmol: 10.0),
        (mgdl: 18.0182, mmol: 1.0),
        (mgdl: 90.091, mmol: 5.0),
        (mgdl: 0.0, mmol: 0.0),
    ])
    func convertsBothWays(mgdl: Double, mmol: Double) {
        let fromMgdl = GlucoseConcentration(milligramsPerDeciliter: mgdl)
        #expect(abs(fromMgdl.millimolesPerLiter - mmol) < 1e-9)
        let fromMmol = GlucoseConcentration(millimolesPerLiter: mmol)
        #expect(abs(fromMmol.milligramsPerDeciliter - mgdl) < 1e-9)
    }

    @Test func commonThresholds() {
        // 70 mg/dL is 3.885 mmol/L, 180 mg/dL 9.990 mmol/L (to three places).
        #expect(abs(GlucoseConcentration(milligramsPerDeciliter: 70).millimolesPerLiter - 3.885) < 0.0005)
        #expect(abs(GlucoseConcentration(milligramsPerDeciliter: 180).millimolesPerLiter - 9.990) < 0.0005)
    }

    @Test(arguments: [(99.5, 100), (99.49, 99), (-0.5, -1), (39.0, 39)])
    func roundsForNightscout(mgdl: Double, rounded: Int) {
        #expect(GlucoseConcentration(milligramsPerDeciliter: mgdl).roundedMilligramsPerDeciliter == rounded)
    }

    @Test func ordersAndDescribes() {
        #expect(GlucoseConcentration(milligramsPerDeciliter: 54) < GlucoseConcentration(millimolesPerLiter: 3.1))
        #expect(GlucoseConcentration(milligramsPerDeciliter: 123.4).description == "123 mg/dL")
    }
}
