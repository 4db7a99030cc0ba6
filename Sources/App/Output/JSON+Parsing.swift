/// Why bytes are not a JSON text Vigil accepts, and where (the byte offset from the start).
/// Said in a log line as it stands: it never quotes the input, which may hold a secret.
public struct JSONError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    public var offset: Int

    public init(_ reason: String, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "not JSON at byte \(offset): \(reason)" }
}

extension JSON {
    /// Containers nested deeper than this are refused: a server's answer is a few levels deep,
    /// and recursion must not follow a hostile one down the stack.
    public static let maximumDepth = 64
    /// Texts longer than this are refused before a byte is read: 4 MiB, the HTTP client's
    /// largest body (docs/network.md).
    public static let maximumSize = 4 << 20

    /// Parses a JSON text (RFC 8259): one value with optional whitespace around it (§2), a
    /// leading byte order mark ignored (§8.1). Strict where the RFC is: no trailing commas,
    /// no comments, no leading zeros or `+` (§6), no unescaped control characters and only
    /// UTF-8 (§7, §8.1), no lone surrogate escape (§8.2). Numbers without a fraction or
    /// exponent that fit `Int64` are `.int`, the others `.double` (§6 leaves the range to
    /// the implementation). Object members keep their order, duplicates included (§4).
    public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSON {
        guard bytes.count <= maximumSize else { throw JSONError("longer than \(maximumSize) bytes", at: 0) }
        var parser = JSONParser(bytes)
        return try parser.parseText()
    }

    public static func parse(_ text: String) throws(JSONError) -> JSON { try parse(Array(text.utf8)) }
}

/// A recursive-descent reader over the bytes, one value at a time, depth-bounded.
private struct JSONParser {
    let bytes: [UInt8]
    var position = 0
    var depth = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseText() throws(JSONError) -> JSON {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard position == bytes.count else { throw fail("more after the value") }
        return value
    }

    func fail(_ reason: String) -> JSONError { JSONError(reason, at: position) }

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    /// RFC 8259 §2: space, tab, line feed, carriage return.
    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    mutating func parseValue() throws(JSONError) -> JSON {
        guard let byte = current else { throw fail("the text ends where a value should be") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected byte 0x\(String(byte, radix: 16)) where a value should be")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONError) {
        let count = word.utf8CodeUnitCount
        let matches = word.withUTF8Buffer { expected in
            position + count <= bytes.count && bytes[position..<position + count].elementsEqual(expected)
        }
        guard matches else { throw fail("not a literal (true, false or null)") }
        position += count
    }

    mutating func enter() throws(JSONError) {
        depth += 1
        guard depth <= JSON.maximumDepth else { throw fail("nested deeper than \(JSON.maximumDepth) levels") }
    }

    /// RFC 8259 §4.
    mutating func parseObject() throws(JSONError) -> JSON {
        try enter()
        position += 1
        var members: [(String, JSON)] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw fail("an object's member must start with a quoted name") }
            let name = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw fail("a ':' must follow a member's name") }
            position += 1
            skipWhitespace()
            members.append((name, try parseValue()))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return .object(members)
            default: throw fail("',' or '}' expected after an object's member")
            }
        }
    }

    /// RFC 8259 §5.
    mutating func parseArray() throws(JSONError) -> JSON {
        try enter()
        position += 1
        var elements: [JSON] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return .array(elements)
            default: throw fail("',' or ']' expected after an array's element")
            }
        }
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func parseNumber() throws(JSONError) -> JSON {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, isDigit(first) else { throw fail("a digit must follow '-'") }
        position += 1
        if first == UInt8(ascii: "0"), let next = current, isDigit(next) { throw fail("a number must not have a leading zero") }
        skipDigits()
        var integral = true
        if current == UInt8(ascii: ".") {
            integral = false
            position += 1
            guard let digit = current, isDigit(digit) else { throw fail("a digit must follow the decimal point") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            integral = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let digit = current, isDigit(digit) else { throw fail("a digit must follow the exponent") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if integral, let value = Int64(text) { return .int(value) }
        // The grammar above is a subset of what Double parses; a huge exponent is infinite.
        guard let value = Double(text), value.isFinite else { throw JSONError("a number out of range", at: start) }
        return .double(value)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    mutating func skipDigits() {
        while let byte = current, isDigit(byte) { position += 1 }
    }

    /// RFC 8259 §7, with the UTF-8 of §8.1 checked and surrogate pairs of §7 joined.
    mutating func parseString() throws(JSONError) -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var runStart = position
        func flush(_ end: Int) throws(JSONError) {
            guard end > runStart else { return }
            guard let run = String(validating: bytes[runStart..<end], as: UTF8.self) else {
                throw JSONError("a string holds bytes that are not UTF-8", at: runStart)
            }
            scalars.append(contentsOf: run.unicodeScalars)
        }
        while true {
            guard let byte = current else { throw fail("a string is not closed") }
            switch byte {
            case UInt8(ascii: "\""):
                try flush(position)
                position += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush(position)
                position += 1
                scalars.append(try parseEscape())
                runStart = position
            case 0..<0x20:
                throw fail("a control character in a string must be escaped")
            default:
                position += 1
            }
        }
    }

    mutating func parseEscape() throws(JSONError) -> Unicode.Scalar {
        guard let byte = current else { throw fail("a string ends inside an escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hexQuad()
            switch unit {
            case 0xD800...0xDBFF:
                guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                    throw fail("a high surrogate escape without its low surrogate")
                }
                position += 2
                let low = try hexQuad()
                guard (0xDC00...0xDFFF).contains(low) else { throw fail("a high surrogate escape followed by no low surrogate") }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
            case 0xDC00...0xDFFF:
                throw fail("a low surrogate escape without its high surrogate")
            default:
                return Unicode.Scalar(unit)!
            }
        default:
            throw fail("an unknown escape")
        }
    }

    mutating func hexQuad() throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw fail("a string ends inside a \\u escape") }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}

extension JSON {
    /// The first member named `key` of an object (RFC 8259 §4 leaves duplicates to the
    /// reader: the first one wins here); nil for a missing member or a value that is no object.
    public subscript(key: String) -> JSON? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The element at `index` of an array; nil out of range or for a value that is no array.
    public subscript(index: Int) -> JSON? {
        guard case let .array(elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    public var string: String? { if case let .string(s) = self { s } else { nil } }
    public var bool: Bool? { if case let .bool(b) = self { b } else { nil } }
    public var array: [JSON]? { if case let .array(a) = self { a } else { nil } }
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// A number as a `Double` (an integer converts).
    public var number: Double? {
        switch self {
        case let .int(i): Double(i)
        case let .double(d): d
        default: nil
        }
    }

    /// A whole number: an `.int`, or a `.double` with no fraction that fits (`1.0e3`).
    public var integer: Int64? {
        switch self {
        case let .int(i): i
        case let .double(d) where d == d.rounded() && abs(d) < 9.0e18: Int64(d)
        default: nil
        }
    }
}
