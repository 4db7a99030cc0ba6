import Alarms
import Transmitters

extension TransmitterInfo {
    /// Every battery report this info carries, in the alarm engine's terms:
    /// - `battery`: a percentage (Battery Service, MiaoMiao, Bubble, the xBridge's bridge).
    /// - Dexcom: the driver puts `Dexcom.BatteryStatusRx.summary` in `hardware` as
    ///   "battery A 3.16 V, B 3.03 V, …" (TransmitterInfo has no voltage field); voltage A is the
    ///   one xDrip judges, and "transmitter low battery" is the transmitter's own status 0x81.
    /// - CGM Service: the "device battery low" status bit, present or absent in a list of
    ///   status bits. A status of "ok" (no bits) says nothing: Dexcom says "ok" too, and it must
    ///   not clear a Dexcom voltage alarm; a stale CGM battery alarm costs one chirp a day.
    /// - Glucose meter: the driver's "meter battery low" note.
    public var batteryReports: [BatteryReport] {
        var reports: [BatteryReport] = []
        if let battery { reports.append(.percent(battery)) }
        if let hardware, hardware.hasPrefix("battery ") {
            let summary = String(hardware.dropFirst("battery ".count))
            if let millivolts = Self.millivolts(after: "A ", in: summary) { reports.append(.voltage(millivolts: millivolts)) }
            if hardware.contains("transmitter low battery") { reports.append(.deviceSaysLow(true)) }
        }
        if let sensorState {
            if sensorState == "meter battery low" {
                reports.append(.deviceSaysLow(true))
            } else if let bits = SensorLifecycle.cgmStatusBits(sensorState) {
                reports.append(.deviceSaysLow(bits.contains(.deviceBatteryLow)))
            }
        }
        return reports
    }

    /// "3.16 V" after `label` as millivolts (3160); nil unless it is digits, a point, two
    /// digits and " V", the form `BatteryStatusRx.summary` writes.
    static func millivolts(after label: String, in text: String) -> Int? {
        // The fields are ", "-separated; the labelled one starts with `label`.
        guard let field = text.split(separator: ",").map({ $0.drop { $0 == " " } }).first(where: { $0.hasPrefix(label) })
        else { return nil }
        let rest = field.dropFirst(label.count)
        guard rest.hasSuffix(" V") else { return nil }
        let number = rest.dropLast(2).split(separator: ".", omittingEmptySubsequences: false)
        guard number.count == 2, number[1].count == 2, let volts = Int(number[0]), let cents = Int(number[1]),
              volts >= 0, cents >= 0 else { return nil }
        return volts * 1000 + cents * 10
    }
}
