import Testing
@testable import Readings

@Suite struct TemperatureTests {
    @Test(arguments: [(0.0, 32.0), (100.0, 212.0), (-40.0, -40.0), (37.0, 98.6)])
    func celsiusAndFahrenheit(celsius: Double, fahrenheit: Double) {
        #expect(abs(Temperature(degreesCelsius: celsius).degreesFahrenheit - fahrenheit) < 1e-9)
        #expect(abs(Temperature(degreesFahrenheit: fahrenheit).degreesCelsius - celsius) < 1e-9)
    }
}
