import Readings

/// What the two raw-value calibrations (Libre 1 through a bridge, `LibreCalibration`; the
/// Dexcom G4 through an xBridge, `XBridgeCalibration`) share: which fingersticks may calibrate
/// at all, and the least-squares line. Their guards after that differ, each with its source
/// (docs/xbridge-calibration.md).
public enum FingerstickCalibration {
    /// Fingersticks outside this range (mg/dL) are refused as calibration points: xDrip+
    /// `Calibration.getConvertedBg` returns nothing below 40 or above 400, the same 40–400 that
    /// Dexcom's own readings span and LoopKit's G7SensorKit `GlucoseLimits` clamps to. A meter
    /// measures further (about 20–600 mg/dL), and such a value is a real reading, stored and
    /// alarmed on; but it is where meters are least accurate, where the sensor's response is
    /// least linear and, below 40, where interstitial glucose lags blood the most — a point
    /// there would bend every later reading.
    public static let acceptedReference: ClosedRange<Double> = 40...400

    /// Why `reference` may not calibrate, or nil when it may.
    public static func refusal(of reference: GlucoseConcentration) -> String? {
        let mgdl = reference.milligramsPerDeciliter
        guard !acceptedReference.contains(mgdl) else { return nil }
        return "outside \(Int(acceptedReference.lowerBound))–\(Int(acceptedReference.upperBound)) mg/dL, the range calibration accepts"
    }

    /// The ordinary least-squares line through `points`, or nil when the x values do not
    /// spread (fewer than two distinct ones) or the result is not finite.
    public static func leastSquares(_ points: [(x: Double, y: Double)]) -> (slope: Double, intercept: Double)? {
        guard points.count >= 2 else { return nil }
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.x } / n
        let meanY = points.reduce(0) { $0 + $1.y } / n
        var sxx = 0.0, sxy = 0.0
        for point in points {
            sxx += (point.x - meanX) * (point.x - meanX)
            sxy += (point.x - meanX) * (point.y - meanY)
        }
        guard sxx > 0 else { return nil }
        let slope = sxy / sxx
        let intercept = meanY - slope * meanX
        guard slope.isFinite, intercept.isFinite else { return nil }
        return (slope, intercept)
    }
}
