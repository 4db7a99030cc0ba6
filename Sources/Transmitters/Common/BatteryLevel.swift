import Readings
import Wire

/// Battery Level, characteristic 0x2A19 of the Battery Service (read, optionally notify): one
/// u8 percentage, 0–100; 101–255 are reserved (gatt-xml `battery_level.xml`,
/// docs/protocols/sig-common.md §Battery Level).
///
/// A reserved value is rejected rather than clamped: a transmitter that says "255 %" is
/// telling us nothing about its battery, and a clamped 100 % would hide a dying one.
public enum BatteryLevel {
    public static func decode(_ bytes: [UInt8]) throws(WireError) -> Percent {
        var reader = ByteReader(bytes)
        let raw = try reader.readUInt8("battery level")
        try reader.expectEnd("battery level")
        guard let level = Percent(Int(raw)) else {
            throw .invalidValue(field: "battery level (101-255 reserved)", value: Int(raw))
        }
        return level
    }

    public static func encode(_ level: Percent) -> [UInt8] { [level.value] }
}
