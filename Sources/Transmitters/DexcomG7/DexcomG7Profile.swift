import Bluetooth

/// The Dexcom G7 GATT profile (docs/protocols/dexcom-g7.md §Family and names, §GATT layout;
/// G7SensorKit `BluetoothServices.swift`): advertised 16-bit service 0xFEBC as on the G6, a local
/// name `DXCMxx` (G7), `DX02xx` (ONE+) or `DX01xx` (Stelo), and the CGM service F8083532-… with
/// Control, Authentication, Backfill and the Certificate characteristic that carries the pairing
/// payloads.
///
/// A sensor is recognised by its name alone, the family's common prefix `DX`: the advertised
/// service 0xFEBC is the G6's too, and a scanner that matched on it would hand a G6 to this
/// driver (a G6 never answers the key exchange) or a G7 to the G6's. Which G7 is ours only the
/// AES challenge tells, so the app remembers the sensor at its first bond or reading. Security
/// is `.none` because the sensor must be authenticated (and, the first time, shown the display's
/// certificates) before it accepts a bond: the driver asks for pairing itself at that point.
public enum DexcomG7Profile {
    /// The G6's service and characteristics (`DexcomProfile`): the same UUIDs.
    public static let cgmService = DexcomProfile.cgmService
    public static let control = DexcomProfile.control
    public static let authentication = DexcomProfile.authentication
    public static let backfill = DexcomProfile.backfill
    /// F8083538-…: J-PAKE rounds, certificates and signatures, in chunks without framing.
    public static let certificate = BluetoothUUID(high: 0xF808_3538_849E_531C, low: 0xC594_30F1_F86A_4EA5)

    public static let namePrefix = "DX"

    /// The G6's profile, recognised by name only and with the Certificate characteristic too.
    public static let profile: TransmitterProfile = {
        var profile = DexcomProfile.profile
        profile.advertisedService = nil
        profile.namePrefix = namePrefix
        profile.otherCharacteristics.append(CharacteristicRequirement(service: cgmService, characteristic: certificate))
        // Every G7 looks alike until the challenge: a sibling's must not be taken for ours.
        profile.remembersPeer = .whenProven
        return profile
    }()
}
