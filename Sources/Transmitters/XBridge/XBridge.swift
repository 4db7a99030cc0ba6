import Bluetooth

/// The xDrip / xBridge Wixel bridge for the Dexcom G4 (docs/protocols/xbridge.md): a Wixel radio
/// that hears the G4 transmitter's 5-minute broadcast and relays it over an HM-10 serial module.
///
/// Sources: wixel-xDrip `apps/dexdrip/dexdrip.c` (classic ASCII), jstevensog/wixel-sdk
/// `apps/xBridge2/xBridge2.c` 2.48c (binary protocol, TXID table), xDrip
/// `DexCollectionService.java`, `TransmitterData.java` and `HM10Attributes.java`.
public enum XBridge {
    /// HM-10 serial service (HM10Attributes.java).
    public static let service = BluetoothUUID("0000FFE0-0000-1000-8000-00805F9B34FB")!
    /// The one HM-10 characteristic: notifications carry the bridge's packets, writes carry ours.
    public static let serialCharacteristic = BluetoothUUID("0000FFE1-0000-1000-8000-00805F9B34FB")!

    /// Classic wixel-xDrip names itself `xDrip` (`AT+NAMExDrip`), xBridge2 `xBridge` + 2 serial
    /// bytes in hex (`AT+NAMExBridge%02x%02x`). Both start with "x", which the name check uses;
    /// the TI SensorTag's Simple Keys service shares FFE0/FFE1, so the UUID alone proves nothing.
    public static let namePrefixes = ["xDrip", "xBridge"]

    /// The profile. No advertised service: HM-10 modules advertise FFE0 only on some firmware,
    /// and the SensorTag shares it, so matching is by name ("x" covers both bridge names;
    /// `XBridgeDriver.start` then refuses a peer whose FFE1 cannot notify). The HM-10 link is
    /// never encrypted by the bridge firmware.
    public static let profile = TransmitterProfile(
        advertisedService: nil,
        namePrefix: "x",
        service: service,
        receiveCharacteristic: serialCharacteristic,
        writeCharacteristic: nil,
        otherCharacteristics: [],
        security: .none)
}
