/// A Dexcom G4 transmitter ID: 5 characters from a 32-symbol alphabet, packed into the u32 the
/// G4 radio and the xBridge firmware use (docs/protocols/xbridge.md §Transmitter ID).
///
/// Alphabet (xBridge2.c `SrcNameTable`, wixel-xDrip `asciiToDexcomSrc`, xDrip `convertSrc`):
/// `0-9 A-H J-N P-U W-Y`, i.e. no I, O, V or Z. value = c0<<20 | c1<<15 | c2<<10 | c3<<5 | c4.
/// Example: `ABCDE` is 0x00A5B1AE (docs/protocols/xbridge.md §Transmitter ID, recomputed).
///
/// xDrip maps an unknown character to 32 and xdripswift to 0; both silently produce an ID that
/// matches no transmitter or the wrong one. Here an unknown character is a configuration error.
public struct XBridgeTransmitterID: Hashable, Sendable, CustomStringConvertible {
    public static let alphabet: [Character] = Array("0123456789ABCDEFGHJKLMNPQRSTUWXY")

    /// The packed form; only the low 25 bits can be set.
    public let rawValue: UInt32

    /// From the wire; nil if bits above the 25 the ID can occupy are set.
    public init?(rawValue: UInt32) {
        guard rawValue >> 25 == 0 else { return nil }
        self.rawValue = rawValue
    }

    /// From the 5 characters printed on the transmitter (case-insensitive).
    public init(_ text: String) throws(XBridgeError) {
        let characters = Array(text.uppercased())
        guard characters.count == 5 else { throw .invalidTransmitterID(text, reason: "a G4 transmitter ID has 5 characters") }
        var value: UInt32 = 0
        for character in characters {
            guard let index = Self.alphabet.firstIndex(of: character) else {
                throw .invalidTransmitterID(text, reason: "\"\(character)\" is not in the G4 alphabet (0-9, A-Y without I, O, V)")
            }
            value = value << 5 | UInt32(index)
        }
        rawValue = value
    }

    /// The 5 characters.
    public var description: String {
        (0..<5).reversed().map { String(Self.alphabet[Int(rawValue >> UInt32($0 * 5) & 0x1F)]) }.joined()
    }
}

public enum XBridgeError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidTransmitterID(String, reason: String)

    public var description: String {
        switch self {
        case let .invalidTransmitterID(text, reason): "invalid transmitter ID \"\(text)\": \(reason)"
        }
    }
}
