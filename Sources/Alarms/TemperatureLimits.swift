import Readings

/// Insulin-fridge temperature out of range.
///
/// Defaults: unopened insulin is stored at 2–8 °C (36–46 °F) and must never freeze — frozen
/// insulin is ruined (every manufacturer's label: "store in a refrigerator (2 °C to 8 °C); do
/// not freeze; do not use insulin that has been frozen"). A door left open for a minute warms the
/// air at the sensor at once but not the insulin, so out of range must last 30 minutes; a
/// reading at or below freezing sounds after 5 minutes, because by then it may already be too
/// late for the vials, while one wrong broadcast still never sounds.
public struct TemperatureLimits: Hashable, Sendable {
    public var low: Temperature?
    public var high: Temperature?
    /// Every reading must be out of range for this long before it sounds.
    public var outOfRangeFor: Duration
    /// At or below `freezing`, "temperature low" sounds after `freezingFor` instead.
    public var freezing: Temperature
    public var freezingFor: Duration

    /// A raised alarm clears only once the temperature is this far back inside the limit
    /// (a fridge thermostat cycles by about a degree; half of that keeps one alarm per event).
    public static let clearingMargin = 0.5

    public init(low: Temperature? = Temperature(degreesCelsius: 2), high: Temperature? = Temperature(degreesCelsius: 8),
                outOfRangeFor: Duration = .seconds(30 * 60), freezing: Temperature = Temperature(degreesCelsius: 0),
                freezingFor: Duration = .seconds(5 * 60)) {
        self.low = low
        self.high = high
        self.outOfRangeFor = outOfRangeFor
        self.freezing = freezing
        self.freezingFor = freezingFor
    }
}
