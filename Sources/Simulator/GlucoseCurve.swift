/// The glucose a simulated transmitter reports, as a function of the reading's index since the
/// session started (one reading every 5 minutes). Pure, so every reading and its backfill copy
/// agree.
public struct GlucoseCurve: Sendable {
    private let value: @Sendable (_ reading: Double) -> Double

    public init(_ value: @escaping @Sendable (_ reading: Double) -> Double) { self.value = value }

    /// mg/dL at reading `index` (may be fractional), clamped to what a Dexcom reports (40–400).
    public func milligramsPerDeciliter(atReading index: Double) -> Double {
        min(400, max(40, value(index).rounded()))
    }

    /// A slow sine between about 70 and 190 mg/dL, period about 4.7 hours: a normal day.
    public static let gentle = GlucoseCurve { 130 + 60 * sine($0 / 9) }

    /// A night that went wrong and is being put right: a steady fall of 4 mg/dL per reading
    /// (from about 190 three hours before) to 50 mg/dL at reading `lowest`, then a rise of
    /// 10 mg/dL per reading — urgent low at once, then low, then in range (the demo starts at
    /// the bottom of it).
    public static func recoveringFromLow(atReading lowest: Double) -> GlucoseCurve {
        GlucoseCurve { k in k <= lowest ? 50 + 4 * (lowest - k) : 50 + 10 * (k - lowest) }
    }

    /// sin(x) by Bhaskara I's approximation (error < 0.002): no libm import in the core, and a
    /// glucose curve needs no more.
    static func sine(_ x: Double) -> Double {
        let twoPi = 2 * Double.pi
        var r = x.truncatingRemainder(dividingBy: twoPi)
        if r < 0 { r += twoPi }
        let sign: Double = r > .pi ? -1 : 1
        if r > .pi { r -= .pi }
        return sign * 16 * r * (.pi - r) / (5 * .pi * .pi - 4 * r * (.pi - r))
    }
}
