import Bluetooth
import Host

/// Decoders for data that devices broadcast in advertisements, shown by `vigil scan`.
/// Broadcast transmitter types (thermometers) add theirs to `decoders` as they are added.
public enum BroadcastDecoding {
    public typealias Decoder = @Sendable (Advertisement) -> JSON?

    /// Tried in order; the first that recognises the data wins.
    public static let decoders: [Decoder] = [batteryServiceData]

    public static func decode(_ advertisement: Advertisement) -> JSON? {
        for decoder in decoders {
            if let json = decoder(advertisement) { return json }
        }
        return nil
    }

    /// Battery Level (0x2A19 format, 0–100 %) carried as Battery Service (0x180F) service data,
    /// as some sensors broadcast it (Core Specification Supplement Part A §1.11 service data).
    static let batteryServiceData: Decoder = { advertisement in
        for parsed in [advertisement.parsed, advertisement.parsedScanResponse].compactMap({ $0 }) {
            if let data = parsed.serviceData(for: BluetoothUUID(0x180F)), data.count == 1, data[0] <= 100 {
                return .object([("battery", .int(Int64(data[0])))])
            }
        }
        return nil
    }
}
