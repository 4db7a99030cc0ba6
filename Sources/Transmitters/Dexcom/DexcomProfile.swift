import Bluetooth

/// The Dexcom G5/G6 GATT profile (docs/protocols/dexcom-g5-g6.md §Discovery and identity, §GATT
/// layout; CGMBLEKit BluetoothServices.swift, xDrip g5model/BluetoothServices.java): advertised
/// 16-bit service 0xFEBC, local name "Dexcom" plus the ID's last two characters, and the CGM
/// service F8083532-… with Control, Authentication and Backfill characteristics.
///
/// The name prefix here is the generic "Dexcom": a profile is per type, not per configured
/// transmitter. `Dexcom.TransmitterID.advertisedName` is the exact name for one ID (the
/// configuration's `name` overrides the prefix per device in the appliance).
/// Security is `.none` because the transmitter must be authenticated before it accepts a bond
/// (docs/protocols/dexcom-g5-g6.md §Authentication): the driver asks for pairing itself
/// at the right moment.
public enum DexcomProfile {
    public static let advertisedService = BluetoothUUID(0xFEBC)
    /// F8083532-849E-531C-C594-30F1F86A4EA5.
    public static let cgmService = BluetoothUUID(high: 0xF808_3532_849E_531C, low: 0xC594_30F1_F86A_4EA5)
    /// F8083533-…, Read/Notify; unused by the classic flow.
    public static let communication = BluetoothUUID(high: 0xF808_3533_849E_531C, low: 0xC594_30F1_F86A_4EA5)
    /// F8083534-…, Write/Indicate: Control messages and their replies.
    public static let control = BluetoothUUID(high: 0xF808_3534_849E_531C, low: 0xC594_30F1_F86A_4EA5)
    /// F8083535-…, Write/Indicate (and read): authentication, keep-alive, bond request.
    public static let authentication = BluetoothUUID(high: 0xF808_3535_849E_531C, low: 0xC594_30F1_F86A_4EA5)
    /// F8083536-…, Read/Write/Notify: backfill frames ("ProbablyBackfill" in xDrip).
    public static let backfill = BluetoothUUID(high: 0xF808_3536_849E_531C, low: 0xC594_30F1_F86A_4EA5)

    public static let namePrefix = "Dexcom"

    public static let profile: TransmitterProfile = {
        var profile = TransmitterProfile(
            advertisedService: advertisedService,
            namePrefix: namePrefix,
            service: cgmService,
            receiveCharacteristic: control,
            writeCharacteristic: authentication,
            otherCharacteristics: [
                CharacteristicRequirement(service: cgmService, characteristic: backfill),
            ],
            security: .none)
        // Any 0xFEBC advertiser matches, a neighbour's G6 and every G7 among them; only the
        // token hash shows the transmitter holds our ID: remembered at its first reading or bond.
        profile.remembersPeer = .whenProven
        return profile
    }()
}
