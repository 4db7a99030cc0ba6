import Bluetooth

/// The Nordic UART Service that MiaoMiao and Bubble bridges carry their protocol on
/// (docs/protocols/miaomiao-bubble.md §MiaoMiao, §Bubble: xdripswift CGMMiaoMiaoTransmitter.swift,
/// LibreTransmitter MiaomiaoTransmitter.swift, xDrip HM10Attributes.java).
public enum NordicUART {
    public static let service = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!
    /// Notified by the bridge (its "TX", our receive side).
    public static let receive = BluetoothUUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")!
    /// Written by us, normally without response (its "RX").
    public static let write = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")!

    /// Why a peer cannot be a MiaoMiao or a Bubble (the same UART carries both), or nil.
    static func incompatibility(_ discovered: DiscoveredServices) -> String? {
        guard let receive = discovered.characteristic(NordicUART.receive, in: NordicUART.service) else {
            return "no Nordic UART receive characteristic (6E400003) in service 6E400001"
        }
        guard receive.properties.contains(.notify) else { return "Nordic UART receive characteristic does not notify" }
        guard let write = discovered.characteristic(NordicUART.write, in: NordicUART.service) else {
            return "no Nordic UART write characteristic (6E400002) in service 6E400001"
        }
        guard !write.properties.isDisjoint(with: [.write, .writeWithoutResponse]) else {
            return "Nordic UART write characteristic is not writable"
        }
        return nil
    }

    /// Whether commands go as write requests: only when the bridge offers no write command,
    /// which costs a round trip per command.
    static func writesWithResponse(_ discovered: DiscoveredServices) -> Bool {
        discovered.characteristic(NordicUART.write, in: NordicUART.service)?.properties.contains(.writeWithoutResponse) != true
    }
}

/// Where a Libre bridge's session is: the MiaoMiao and the Bubble speak over the same UART and
/// begin alike, subscribing to its receive side and sending their start command once that is
/// confirmed.
public enum LibreBridgeStage: Hashable, Sendable {
    case awaitingSubscription
    /// Subscribed; the start command sent, data flowing.
    case reading
}

extension TransmitterDeclaration {
    /// A bridge carrying a Libre 1 sensor (MiaoMiao, Bubble): continuous glucose from a sensor
    /// that lasts 14 days, its wire formats reached by the `libre` fuzz target.
    static let libre1Bridge = TransmitterDeclaration(category: .continuousGlucose, fuzzTarget: "libre", sensorLife: .seconds(14 * 24 * 3600))
}
