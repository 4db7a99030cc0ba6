import Testing
@testable import Readings

/// The one trend table, edge by edge. Every expectation is a band edge of xDrip+'s
/// `BgReading.slopeName` (NightscoutFoundation/xDrip app/src/main/java/com/eveningoutpost/dexdrip/
/// models/BgReading.java: `slope_by_minute <= (-3.5)` DoubleDown, `<= (-2)` SingleDown,
/// `<= (-1)` FortyFiveDown, `<= (1)` Flat, `<= (2)` FortyFiveUp, `<= (3.5)` SingleUp,
/// `<= (40)` DoubleUp, else "NONE"), taken at the edge and just past it.
@Suite struct TrendDirectionRateTests {
    /// Each edge, and 0.001 mg/dL/min past it.
    static let edges: [(Double, TrendDirection)] = [
        (-100, .doubleDown),
        (-3.5, .doubleDown), (-3.499, .singleDown),
        (-2, .singleDown), (-1.999, .fortyFiveDown),
        (-1, .fortyFiveDown), (-0.999, .flat),
        (0, .flat),
        (1, .flat), (1.001, .fortyFiveUp),
        (2, .fortyFiveUp), (2.001, .singleUp),
        (3.5, .singleUp), (3.501, .doubleUp),
        (40, .doubleUp), (40.001, .none),
    ]

    @Test(arguments: edges)
    func bandEdges(rate: Double, direction: TrendDirection) {
        #expect(TrendDirection(milligramsPerDeciliterPerMinute: rate) == direction)
    }

    /// Not a number, or not a finite one: no rate at all (Vigil's rule; see the doc comment).
    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteIsNotComputable(rate: Double) {
        #expect(TrendDirection(milligramsPerDeciliterPerMinute: rate) == .notComputable)
    }

    /// The table is written once: its edges rise, and every arrow in it is a known direction.
    @Test func bandsAreOrdered() {
        let edges = TrendDirection.rateBands.map(\.atMost)
        #expect(edges == edges.sorted())
        #expect(TrendDirection.rateBands.allSatisfy { $0.direction.isKnown })
    }
}
