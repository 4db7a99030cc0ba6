import Testing
@testable import Readings

@Suite struct DecimalTextTests {
    /// A sensor's decimal prints as sent; a computed value (Libre raw / 8.5, a meter's mmol/L in
    /// mg/dL) to two places; whole numbers without a fraction.
    static let cases: [(Double, String)] = [
        (81.5, "81.5"), (8150.0 / 100, "81.5"), (53.4925, "53.4925"), (4861.0 / 200, "24.305"),
        (25.06, "25.06"), (72, "72"), (-18.25, "-18.25"), (0, "0"),
        (1323.0 / 8.5, "155.65"), (5.6 * 18.0182, "100.9"), (23.431564941406243, "23.43"),
    ]

    @Test(arguments: cases)
    func text(value: Double, text: String) {
        #expect(DecimalText.text(value) == text)
    }

    @Test func notFinite() {
        #expect(DecimalText.text(.nan) == "nan")
        #expect(DecimalText.text(.infinity) == "inf")
    }
}
