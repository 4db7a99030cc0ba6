/// The page's access token (docs/web.md "Configuration"): what its file must hold, and how a
/// new one is made from random bytes. The executable reads the file and the kernel's random
/// bytes; the rules are here so they are tested without either.
///
/// No message here ever contains the token or a part of it: they are logged and printed.
public enum WebToken {
    /// The characters a token may have: letters, digits, `-`, `_` and `.`, all safe in a URL's
    /// query, a cookie and an HTTP header without escaping.
    static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }

    /// Shorter is guessable over a home network; the made ones are `generatedLength`.
    public static let minimumLength = 16
    /// Longer is not a token someone typed or a tool made: a wrong file named by mistake.
    public static let maximumLength = 512
    /// 32 characters of 64: 192 bits.
    public static let generatedLength = 32
    /// A file bigger than this is not read whole: `vigil run` reads it before the alarms start.
    public static let maximumFileSize = 4096

    /// Why a token file is refused: a sentence about the file, never its contents.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case empty
        case severalLines
        case tooShort(length: Int)
        case tooLong
        /// The first byte outside the alphabet, at this 1-based column.
        case forbiddenCharacter(column: Int)
        /// Others than the owner and its group may read it (the mode's "other" read bit).
        case readableByOthers(mode: UInt32)

        public var description: String {
            switch self {
            case .empty:
                "the token file is empty: `vigil web token` writes a new token into it"
            case .severalLines:
                "the token file must hold one line, the token"
            case let .tooShort(length):
                "the token has \(length) characters; it needs at least \(WebToken.minimumLength) (`vigil web token` makes one of \(WebToken.generatedLength))"
            case .tooLong:
                "the token is longer than \(WebToken.maximumLength) characters: is this the right file?"
            case let .forbiddenCharacter(column):
                "the token may only have letters, digits, '-', '_' and '.', and has another character at column \(column)"
            case let .readableByOthers(mode):
                "the token file is readable by every user (mode \(String(mode & 0o7777, radix: 8))): `chmod o-rwx` it, or make a new one with `vigil web token`"
            }
        }
    }

    /// The token a file holds: one line, an optional line end (LF or CRLF) after it.
    public static func read(_ contents: [UInt8]) throws(Problem) -> String {
        var line = contents[...]
        if line.last == UInt8(ascii: "\n") { line = line.dropLast() }
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        if line.isEmpty { throw .empty }
        if line.contains(UInt8(ascii: "\n")) { throw .severalLines }
        if let bad = line.firstIndex(where: { !isAllowed($0) }) { throw .forbiddenCharacter(column: bad - line.startIndex + 1) }
        if line.count < minimumLength { throw .tooShort(length: line.count) }
        if line.count > maximumLength { throw .tooLong }
        return String(decoding: line, as: UTF8.self)
    }

    /// Refuses a file whose mode lets every user read it: the token snoozes alarms.
    public static func checkMode(_ mode: UInt32) throws(Problem) {
        if mode & 0o004 != 0 { throw .readableByOthers(mode: mode) }
    }

    /// A new token from `randomBytes` (at least `generatedLength` of them, from the kernel):
    /// each byte's low six bits pick one of 64 characters, so every character is equally likely.
    public static func make(from randomBytes: [UInt8]) -> String {
        precondition(randomBytes.count >= generatedLength, "a token needs \(generatedLength) random bytes")
        return String(decoding: randomBytes.prefix(generatedLength).map { alphabet[Int($0 & 63)] }, as: UTF8.self)
    }

    /// 64 of the allowed characters (all but `.`).
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
