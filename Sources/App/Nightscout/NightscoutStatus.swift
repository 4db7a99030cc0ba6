import Alarms
import Readings

extension Nightscout {
    /// `status.json` (`lib/api/status.js`): who the server is, its time, and the settings a
    /// follower draws with: units and the four thresholds of Nightscout's simple alarms
    /// (docs/nightscout-api.md "Status").
    enum Status {
        /// Nightscout's defaults (`lib/settings.js`), for a threshold Vigil has turned off.
        static let defaultHigh = 260, defaultTargetTop = 180

        static func document(_ snapshot: Snapshot, configuration: API.Configuration, authentication: Authentication?) -> JSON {
            let authorized: JSON = authentication == nil ? .null
                : .object([("sub", "vigil-reader"), ("permissions", .array(["api:*:read"]))])
            return .object([
                ("status", "ok"), ("name", .string(configuration.name)), ("version", .string(configuration.version)),
                ("serverTime", .string(snapshot.now.iso8601)), ("serverTimeEpoch", .int(snapshot.now.millisecondsSinceEpoch)),
                ("apiEnabled", true), ("careportalEnabled", false), ("boluscalcEnabled", false),
                ("settings", settings(snapshot, configuration: configuration)), ("extendedSettings", .object([])),
                ("authorized", authorized), ("runtimeState", "loaded"),
            ])
        }

        static func settings(_ snapshot: Snapshot, configuration: API.Configuration) -> JSON {
            let t = snapshot.thresholds
            return .object([
                ("units", snapshot.units == .millimolesPerLiter ? "mmol" : "mg/dl"), ("timeFormat", 24), ("nightMode", false),
                ("customTitle", .string(configuration.name)), ("theme", "default"), ("language", "en"),
                ("alarmUrgentHigh", .bool(t.urgentHigh != nil)), ("alarmHigh", .bool(t.high != nil)),
                ("alarmLow", .bool(t.low != nil)), ("alarmUrgentLow", true),
                ("enable", .array(["delta", "direction", "upbat"])),
                ("authDefaultRoles", configuration.readableWithoutAuthentication ? "readable" : "denied"),
                ("thresholds", thresholds(t)),
            ])
        }

        /// Nightscout's simple alarms sound above `bgHigh` (urgent), above `bgTargetTop`,
        /// below `bgTargetBottom` and below `bgLow` (urgent): Vigil's urgent high, high, low
        /// and urgent low. A threshold Vigil has turned off takes its neighbour's value.
        static func thresholds(_ t: GlucoseThresholds) -> JSON {
            func whole(_ value: GlucoseConcentration?) -> Int64? { value.map { Int64($0.roundedMilligramsPerDeciliter) } }
            return .object([
                ("bgHigh", .int(whole(t.urgentHigh ?? t.high) ?? Int64(defaultHigh))),
                ("bgTargetTop", .int(whole(t.high ?? t.urgentHigh) ?? Int64(defaultTargetTop))),
                ("bgTargetBottom", .int(whole(t.low ?? t.urgentLow) ?? 0)),
                ("bgLow", .int(whole(t.urgentLow) ?? 0)),
            ])
        }
    }
}
