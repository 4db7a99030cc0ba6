/// The 6-byte patchInfo a bridge reads from the sensor; byte 0 names the sensor family
/// (docs/protocols/miaomiao-bubble.md §MiaoMiao: xdripswift
/// …/Libre/Utilities/LibreSensorType.swift).
///
/// Only Libre 1 sends a plain FRAM; the others encrypt it. The bridge drivers decrypt the
/// European Libre 2 and 2 Plus families with `Libre2FRAMCipher` (through `LibreBridgeFRAM`;
/// docs/protocols/libre2-fram.md §Families) and refuse the rest here, naming the family, because
/// an encrypted FRAM would otherwise surface only as a baffling CRC mismatch. xDrip's
/// NFCReaderXTest labels patchInfo `9D 08 30 …` "libre1" while its FRAM is plain; we follow
/// xdripswift's table (9D = Libre 2 EU), as xdripswift and DiaBLE decrypt such a sensor.
public struct LibrePatchInfo: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 6

    public enum Family: Hashable, Sendable, CustomStringConvertible {
        case libre1
        case libre2EU
        case libre2PlusEU
        /// US and Canadian Libre 2 and 2 Plus: a newer security generation whose FRAM the
        /// public cipher does not open.
        case libre2Gen2
        case libreUS14Day
        case librePro
        case unknown(UInt8)

        public init(byte: UInt8) {
            switch byte {
            case 0xDF, 0xA2: self = .libre1
            case 0x9D, 0xC5: self = .libre2EU
            case 0xC6, 0x7F: self = .libre2PlusEU
            case 0x76, 0x2B, 0x2C: self = .libre2Gen2
            case 0xE5, 0xE6: self = .libreUS14Day
            case 0x70: self = .librePro
            default: self = .unknown(byte)
            }
        }

        /// Whether `Libre2FRAMCipher` opens this family's FRAM: the European Libre 2 and 2 Plus,
        /// which DiaBLE and LibreTransmitter decrypt with the same patchInfo tweak.
        public var usesLibre2FRAMCipher: Bool {
            self == .libre2EU || self == .libre2PlusEU
        }

        public var description: String {
            switch self {
            case .libre1: "Libre 1"
            case .libre2EU: "Libre 2 EU"
            case .libre2PlusEU: "Libre 2 Plus EU"
            case .libre2Gen2: "Libre 2 Gen2 (US/CA)"
            case .libreUS14Day: "Libre US 14-day"
            case .librePro: "Libre Pro/H"
            case let .unknown(byte): "unknown sensor family 0x\(String(byte, radix: 16, uppercase: true))"
            }
        }
    }

    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) throws(LibrePatchInfoError) {
        guard bytes.count == Self.byteCount else { throw .wrongLength(bytes.count) }
        self.bytes = bytes
    }

    /// For callers that have already sliced exactly six bytes.
    init(checked bytes: [UInt8]) {
        precondition(bytes.count == Self.byteCount)
        self.bytes = bytes
    }

    public var family: Family { Family(byte: bytes[0]) }

    /// Nil for the families Vigil reads (Libre 1, and the European Libre 2 / 2 Plus it
    /// decrypts); otherwise why it cannot read this sensor.
    public var unsupportedReason: String? {
        if family == .libre1 || family.usesLibre2FRAMCipher { return nil }
        return "sensor is \(family) (patchInfo \(bytes.map { hex2($0) }.joined(separator: " "))): its FRAM is encrypted in a way "
            + "Vigil does not decrypt; only Libre 1 and European Libre 2 / 2 Plus are supported"
    }

    public var description: String { "\(family)" }
}

public enum LibrePatchInfoError: Error, Hashable, Sendable, CustomStringConvertible {
    case wrongLength(Int)

    public var description: String {
        switch self {
        case let .wrongLength(count): "patchInfo of \(count) bytes, expected 6"
        }
    }
}

func hex2(_ byte: UInt8) -> String {
    let text = String(byte, radix: 16, uppercase: true)
    return text.count < 2 ? "0" + text : text
}
