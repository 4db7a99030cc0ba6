import Readings
import Testing
@testable import Alarms

@Suite struct GlucoseThresholdsTests {
    @Test func urgentLowCannotBeSetOutOfReach() {
        var t = GlucoseThresholds(urgentLow: GlucoseConcentration(milligramsPerDeciliter: 0))
        #expect(t.urgentLow.milligramsPerDeciliter == 40)
        t.urgentLow = GlucoseConcentration(milligramsPerDeciliter: 20)
        #expect(t.urgentLow.milligramsPerDeciliter == 40)
        t.urgentLow = GlucoseConcentration(millimolesPerLiter: 3.5)
        #expect(abs(t.urgentLow.milligramsPerDeciliter - 63.0637) < 1e-9)
    }
}
