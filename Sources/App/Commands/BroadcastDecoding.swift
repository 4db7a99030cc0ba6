import Bluetooth
import Host
import Transmitters

/// Decoders for data that devices broadcast in advertisements, shown by `vigil scan`.
/// Broadcast transmitter types (thermometers) add theirs to `decoders` as they are added.
public enum BroadcastDecoding {
    public typealias Decoder = @Sendable (Advertisement) -> JSON?

    /// Tried in order; the first that recognises the data wins.
    public static let decoders: [Decoder] = [registeredBroadcastTypes, batteryServiceData]

    public static func decode(_ advertisement: Advertisement) -> JSON? {
        for decoder in decoders {
            if let json = decoder(advertisement) { return json }
        }
        return nil
    }

    /// Every broadcast transmitter type (BTHome, RuuviTag): a throwaway decoder with no key
    /// reads the advertisement, so an encrypted BTHome packet shows as needing its key.
    static let registeredBroadcastTypes: Decoder = { advertisement in
        let summary = AdvertisementSummary(address: advertisement.address, advertising: advertisement.parsed,
                                           scanResponse: advertisement.parsedScanResponse, rssi: advertisement.rssi)
        for type in BroadcastRegistry.builtIn.types where type.recognition.payload(in: summary) != nil {
            guard var decoder = try? type.makeDecoder(TransmitterConfiguration(typeName: type.name)) else { continue }
            var fields: [(String, JSON)] = [("type", .string(type.name))]
            for event in decoder.decode(summary, at: advertisement.lastSeen) {
                switch event {
                case .reading(let reading):
                    switch reading.value {
                    case .temperature(let t): fields.append(("celsius", .double(t.degreesCelsius)))
                    case .humidity(let h): fields.append(("humidity", .double(h.percent)))
                    default: fields.append((reading.kind.rawValue, .string("\(reading.value)")))
                    }
                case .info(let info):
                    if let battery = info.battery { fields.append(("battery", .int(Int64(battery.value)))) }
                case .pairingFailed(let reason), .malformedValue(_, let reason):
                    fields.append(("problem", .string(reason)))
                default:
                    break
                }
            }
            return .object(fields)
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
