import Testing
@testable import Readings

@Suite struct RelativeHumidityTests {
    /// 0 through 100 inclusive, at any resolution.
    @Test(arguments: [0, 0.0025, 53.4925, 81.5, 100])
    func acceptsTheRange(percent: Double) throws {
        #expect(try #require(RelativeHumidity(percent: percent)).percent == percent)
    }

    /// Beyond the range or not a number: a failed sensor, never a reading.
    @Test(arguments: [-0.01, 100.0025, 163.835, .nan, .infinity, -.infinity])
    func refusesOutsideTheRange(percent: Double) {
        #expect(RelativeHumidity(percent: percent) == nil)
    }

    /// Printed as the sensor sent it: BTHome 8150 × 0.01 = 81.5, Ruuvi 21397 × 0.0025 = 53.4925.
    static let printed: [(Double, String)] = [(8150.0 / 100, "81.5 %"), (21397.0 / 400, "53.4925 %"), (55, "55 %"), (0, "0 %")]

    @Test(arguments: printed)
    func description(percent: Double, text: String) throws {
        #expect(try #require(RelativeHumidity(percent: percent)).description == text)
    }

    @Test func orders() throws {
        #expect(try #require(RelativeHumidity(percent: 81.5)) < #require(RelativeHumidity(percent: 82)))
    }
}
