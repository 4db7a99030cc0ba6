/// The sensor's 8-byte NFC UID, in the byte order the FRAM cipher reads it: least significant
/// byte first, so a Libre's UID ends `… 07 E0` (docs/protocols/libre2-fram.md §Inputs).
public struct LibreSensorUID: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 8

    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) throws(LibreSensorUIDError) {
        guard bytes.count == Self.byteCount else { throw .wrongLength(bytes.count) }
        self.bytes = bytes
    }

    /// Bytes `index` and `index + 1` as a little-endian word.
    func word(at index: Int) -> UInt16 {
        UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
    }

    public var description: String { bytes.map(hex2).joined(separator: " ") }
}

public enum LibreSensorUIDError: Error, Hashable, Sendable, CustomStringConvertible {
    case wrongLength(Int)

    public var description: String {
        switch self {
        case let .wrongLength(count): "sensor UID of \(count) bytes, expected 8"
        }
    }
}
