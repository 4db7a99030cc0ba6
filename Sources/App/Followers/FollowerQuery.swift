import Crypto

/// Small encodings the services' requests need.
enum FollowerQuery {
    /// A query component percent-encoded (RFC 3986 §2.1, §3.4): every byte but the unreserved
    /// ones (§2.3), so `find[date][$gt]` and a token reach the server as written.
    static func encoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + hex([byte]).uppercased()
            }
        }
        return out
    }

    /// `name=value&...`, each part encoded.
    static func query(_ items: [(String, String)]) -> String {
        items.map { encoded($0.0) + "=" + encoded($0.1) }.joined(separator: "&")
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".unicodeScalars)
        var out = ""
        for byte in bytes {
            out.unicodeScalars.append(digits[Int(byte >> 4)])
            out.unicodeScalars.append(digits[Int(byte & 0x0F)])
        }
        return out
    }

    /// Lowercase hex SHA-1: what Nightscout compares its `api-secret` header with.
    static func sha1Hex(_ text: String) -> String { hex(Insecure.SHA1.hash(data: Array(text.utf8))) }

    /// Lowercase hex SHA-256: LibreLinkUp's `Account-Id` (docs/followers.md).
    static func sha256Hex(_ text: String) -> String { hex(SHA256.hash(data: Array(text.utf8))) }

    /// A value from a server for a log line: printable ASCII, at most 64 characters.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.prefix(64)))
    }
}
