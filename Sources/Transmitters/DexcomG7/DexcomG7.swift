/// The Dexcom G7 family (G7, ONE+, Stelo): messages, pairing cryptography and the session driver
/// (docs/protocols/dexcom-g7.md for the bytes, docs/dexcom-g7.md for how Vigil runs a session).
public enum DexcomG7 {
    /// "Sensor time": seconds since the sensor was activated, u32 on the wire
    /// (docs/protocols/dexcom-g7.md §Control messages).
    public typealias SensorTime = UInt32
}
