import Bluetooth

/// The Dexcom G7 GATT profile (docs/protocols/dexcom-g7.md §Family and names, §GATT layout;
/// G7SensorKit `BluetoothServices.swift`): advertised 16-bit service 0xFEBC as on the G6, a local
/// name `DXCMxx` (G7), `DX02xx` (ONE+) or `DX01xx` (Stelo), and the CGM service F8083532-… with
/// Control, Authentication, Backfill and the Certificate characteristic that carries the pairing
/// payloads.
///
/// A sensor is recognised by its name alone, the family's common prefix `DX`: the advertised
/// service 0xFEBC is the G6's too, and a scanner that matched on it would hand a G6 to this
/// driver (a G6 never answers the key exchange) or a G7 to the G6's. Security is `.none` because the sensor must be authenticated
/// (and, the first time, shown the display's certificates) before it accepts a bond: the driver
/// asks for pairing itself at that point.
public enum DexcomG7Profile {
    public static let advertisedService = BluetoothUUID(0xFEBC)
    /// F8083532-849E-531C-C594-30F1F86A4EA5, the G6's service UUID.
    public static let cgmService = BluetoothUUID(high: 0xF808_3532_849E_531C, low: 0xC594_30F1_F86A_4EA5)
    /// F8083534-…: Control requests and their replies.
    public static let control = BluetoothUUID(high: 0xF808_3534_849E_531C, low: 0xC594_30F1_F86A_4EA5)
    /// F8083535-…: the framing of every pairing step, and the AES challenge.
    public static let authentication = BluetoothUUID(high: 0xF808_3535_849E_531C, low: 0xC594_30F1_F86A_4EA5)
    /// F8083536-…: 9-byte backfill records.
    public static let backfill = BluetoothUUID(high: 0xF808_3536_849E_531C, low: 0xC594_30F1_F86A_4EA5)
    /// F8083538-…: J-PAKE rounds, certificates and signatures, in chunks without framing.
    public static let certificate = BluetoothUUID(high: 0xF808_3538_849E_531C, low: 0xC594_30F1_F86A_4EA5)

    public static let namePrefix = "DX"

    public static let profile = TransmitterProfile(
        advertisedService: nil,
        namePrefix: namePrefix,
        service: cgmService,
        receiveCharacteristic: control,
        writeCharacteristic: authentication,
        otherCharacteristics: [
            CharacteristicRequirement(service: cgmService, characteristic: backfill),
            CharacteristicRequirement(service: cgmService, characteristic: certificate),
        ],
        security: .none)
}
