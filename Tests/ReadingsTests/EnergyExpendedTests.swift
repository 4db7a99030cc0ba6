import Testing
@testable import Readings

@Suite struct EnergyExpendedTests {
    @Test func storesKilojoulesAndConvertsToKilocalories() {
        let energy = EnergyExpended(kilojoules: 4184)
        #expect(energy.kilojoules == 4184)
        #expect(abs(energy.kilocalories - 1000) < 1e-9)
        #expect(energy.description == "4184 kJ")
        #expect(EnergyExpended(kilojoules: 1) < EnergyExpended(kilojoules: 2))
    }
}
