import Testing
@testable import Readings

@Suite struct MeterReadingContextTests {
    /// Every meal with every tester, and each alone: written and read back the same.
    @Test func textRoundTrips() throws {
        var contexts: [MeterReadingContext] = []
        for meal in [nil] + MeterReadingContext.Meal.allCases.map(Optional.some) {
            for tester in [nil] + MeterReadingContext.Tester.allCases.map(Optional.some) {
                if let context = MeterReadingContext(meal: meal, tester: tester) { contexts.append(context) }
            }
        }
        #expect(contexts.count == 6 * 5 - 1)
        for context in contexts {
            #expect(MeterReadingContext(text: context.text) == context, "\(context.text)")
        }
    }

    @Test func spelling() throws {
        #expect(try #require(MeterReadingContext(meal: .preprandial, tester: .selfTested)).text == "meal=preprandial;tester=self")
        #expect(try #require(MeterReadingContext(meal: nil, tester: .healthCareProfessional)).text == "tester=health-care-professional")
        #expect(try #require(MeterReadingContext(meal: .bedtime, tester: nil)).text == "meal=bedtime")
        #expect(MeterReadingContext(meal: nil, tester: nil) == nil)
    }

    /// Anything the history could not have written is refused, never half read.
    @Test(arguments: ["", "meal=", "meal=brunch", "tester=self;meal=fasting", "meal=fasting;meal=casual", "meal=fasting;",
                      "meal=fasting;tester=doctor", "meal fasting", "health=minor", "MEAL=fasting"])
    func refusesOtherText(text: String) {
        #expect(MeterReadingContext(text: text) == nil)
    }
}
