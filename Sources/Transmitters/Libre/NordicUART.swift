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
}
