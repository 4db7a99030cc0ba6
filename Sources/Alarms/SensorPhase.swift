/// Where a glucose sensor's session stands, as the alarm engine needs it. The app maps each
/// driver's own words (Dexcom "warmup", Libre "warming up", CGM Service status bits) onto
/// these; the engine never sees a driver's vocabulary.
public enum SensorPhase: String, Hashable, Sendable, CaseIterable {
    /// Inserted and warming up: no glucose yet, by design.
    case warmingUp = "warming-up"
    /// Giving glucose (or about to, once calibrated).
    case running
    /// Expired, stopped, failed, or no session at all: no glucose will come until a person
    /// changes or starts a sensor.
    case ended
}
