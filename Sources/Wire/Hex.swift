/// Hex text for logs and test vectors: "0a 1b" and "0A1B" both parse.
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Lower-case hex, bytes separated by `separator` (default none).
    public static func encode<C: Collection>(_ bytes: C, separator: String = "") -> String where C.Element == UInt8 {
        var out = ""
        out.reserveCapacity(bytes.count * (2 + separator.count))
        var first = true
        for byte in bytes {
            if !first { out += separator }
            first = false
            out.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
            out.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 0x0F)]))
        }
        return out
    }

    /// Parses hex, ignoring spaces, colons and dashes. Returns nil on any other character or an odd digit count.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var high: UInt8?
        for scalar in text.unicodeScalars {
            let nibble: UInt8
            switch scalar {
            case "0"..."9": nibble = UInt8(scalar.value - 48)
            case "a"..."f": nibble = UInt8(scalar.value - 87)
            case "A"..."F": nibble = UInt8(scalar.value - 55)
            case " ", ":", "-", "\n", "\t": continue
            default: return nil
            }
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return high == nil ? out : nil
    }
}

extension Array where Element == UInt8 {
    /// Test-vector convenience: `[UInt8](hex: "01 02")`. Traps on bad hex, so use only on literals.
    public init(hex: String) {
        guard let bytes = Hex.decode(hex) else { preconditionFailure("bad hex literal: \(hex)") }
        self = bytes
    }

    public var hexString: String { Hex.encode(self, separator: " ") }
}
