import Testing
@testable import Readings

@Suite struct TrendDirectionTests {
    // The Nightscout `direction` strings, verbatim (docs/peer-conventions.md §Nightscout entries).
    static let vocabulary = [
        "NONE", "TripleUp", "DoubleUp", "SingleUp", "FortyFiveUp", "Flat", "FortyFiveDown",
        "SingleDown", "DoubleDown", "TripleDown", "NOT COMPUTABLE", "RATE OUT OF RANGE",
    ]

    @Test func coversExactlyTheNightscoutVocabulary() {
        #expect(TrendDirection.allCases.map(\.nightscoutName) == Self.vocabulary)
    }

    @Test(arguments: vocabulary)
    func roundTripsNightscoutNames(name: String) throws {
        let direction = try #require(TrendDirection(nightscoutName: name))
        #expect(direction.nightscoutName == name)
        #expect(direction.description == name)
    }

    @Test(arguments: ["", "flat", "FLAT", "Not Computable", "NOT_COMPUTABLE", "DoubleUp "])
    func rejectsNearMisses(name: String) {
        #expect(TrendDirection(nightscoutName: name) == nil)
    }

    @Test func arrows() {
        #expect(TrendDirection.tripleUp.arrowCount == 3)
        #expect(TrendDirection.singleUp.arrowCount == 1)
        #expect(TrendDirection.flat.arrowCount == 0)
        #expect(TrendDirection.fortyFiveDown.arrowCount == 0)
        #expect(TrendDirection.doubleDown.arrowCount == -2)
        #expect(TrendDirection.tripleDown.arrowCount == -3)
        for unknown in [TrendDirection.none, .notComputable, .rateOutOfRange] {
            #expect(unknown.arrowCount == nil)
            #expect(!unknown.isKnown)
        }
        #expect(TrendDirection.flat.isKnown)
    }
}
