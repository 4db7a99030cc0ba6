import Testing
@testable import Readings

@Suite struct PercentTests {
    @Test(arguments: [0, 1, 50, 99, 100])
    func acceptsZeroThroughHundred(value: Int) throws {
        let percent = try #require(Percent(value))
        #expect(Int(percent.value) == value)
        #expect(percent.fraction == Double(value) / 100)
    }

    @Test(arguments: [-1, 101, 255, 256, Int.min, Int.max])
    func rejectsOutOfRange(value: Int) {
        #expect(Percent(value) == nil)
    }

    @Test func constantsAndOrder() {
        #expect(Percent.zero.value == 0)
        #expect(Percent.full.value == 100)
        #expect(Percent(20)! < Percent(21)!)
        #expect(Percent(42)!.description == "42 %")
    }
}
