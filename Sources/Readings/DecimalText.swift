/// A measured number as text for people and logs: a value that is a decimal of at most
/// `exactFractionDigits` places prints exactly (81.5, 53.4925, 24.305), anything longer —
/// a computed value such as raw / 8.5 — to two places, and a whole number without a fraction.
///
/// Sensors send decimals (0.01 %, 0.0025 %, 0.005 °C) that decoders turn into the nearest
/// Double; Swift's shortest round-trip form prints those back exactly, so the test "does the
/// value survive rounding to four places" tells a sensor's decimal from a long computation.
public enum DecimalText {
    public static let exactFractionDigits = 4

    public static func text(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let scale = 10_000.0  // 10^exactFractionDigits
        let exact = (value * scale).rounded() / scale == value
        let shown = exact ? value : (value * 100).rounded() / 100
        if shown == shown.rounded(), abs(shown) < 1e15 { return String(Int64(shown)) }
        return "\(shown)"
    }
}
