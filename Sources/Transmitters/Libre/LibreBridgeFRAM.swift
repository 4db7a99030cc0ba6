/// The FRAM a bridge (MiaoMiao, Bubble) forwarded as the sensor stores it, made plain for
/// `LibreFRAM(decoding:)` with the sensor UID and patchInfo the same bridge reported
/// (docs/protocols/libre2-fram.md §Through the bridges).
///
/// A Libre 1's FRAM is plain; a European Libre 2 or 2 Plus is deciphered with
/// `Libre2FRAMCipher`. The block CRCs that `LibreFRAM` checks afterwards are the test that the
/// UID, patchInfo and family were right: a wrong key surfaces as a CRC mismatch, not here.
public enum LibreBridgeFRAM {
    /// `forwarded` as plain FRAM. Without a patchInfo (older MiaoMiao firmware) the sensor is
    /// taken for a Libre 1, as before patchInfo existed; callers refuse the families Vigil cannot
    /// read (`LibrePatchInfo.unsupportedReason`) before they get here.
    public static func plain(_ forwarded: [UInt8], sensorUID: [UInt8]?, patchInfo: LibrePatchInfo?) throws(LibreBridgeFRAMError) -> [UInt8] {
        guard let patchInfo, patchInfo.family.usesLibre2FRAMCipher else { return forwarded }
        guard let sensorUID else { throw .noSensorUID(patchInfo.family) }
        let uid: LibreSensorUID
        do { uid = try LibreSensorUID(sensorUID) } catch { throw .sensorUID(error) }
        do { return try Libre2FRAMCipher.decrypt(fram: forwarded, sensorUID: uid, patchInfo: patchInfo) } catch { throw .cipher(error) }
    }
}

public enum LibreBridgeFRAMError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bridge sent a Libre 2's FRAM before (or without) the sensor UID that keys it.
    case noSensorUID(LibrePatchInfo.Family)
    case sensorUID(LibreSensorUIDError)
    case cipher(Libre2FRAMCipherError)

    public var description: String {
        switch self {
        case let .noSensorUID(family): "\(family) FRAM arrived without the sensor UID needed to decrypt it"
        case let .sensorUID(error): "cannot decrypt the Libre 2 FRAM: \(error)"
        case let .cipher(error): "cannot decrypt the Libre 2 FRAM: \(error)"
        }
    }
}
