extension HTTP {
    /// A message's header fields in the order they came (RFC 9110 §5): names compare without
    /// regard to case (§5.1), a name may appear more than once, and the order of lines with the
    /// same name is kept because it is the order of their values (§5.3).
    ///
    /// Values are text: a request's field value bytes decoded as UTF-8, invalid sequences
    /// replaced (obs-text is opaque data to a recipient, RFC 9110 §5.5), without the optional
    /// whitespace around them (§5.5).
    public struct Headers: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
        /// One field line (RFC 9110 §5.2).
        public struct Field: Hashable, Sendable {
            public var name: String
            public var value: String

            public init(name: String, value: String) {
                self.name = name
                self.value = value
            }
        }

        public private(set) var fields: [Field] = []

        public init() {}
        public init(_ fields: [Field]) { self.fields = fields }
        public init(dictionaryLiteral elements: (String, String)...) {
            fields = elements.map { Field(name: $0.0, value: $0.1) }
        }

        public var count: Int { fields.count }
        public var isEmpty: Bool { fields.isEmpty }
        public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

        /// The first value of `name`; nil when absent.
        public subscript(name: String) -> String? {
            fields.first { Self.sameName($0.name, name) }?.value
        }

        /// Every value of `name`, in order.
        public func values(for name: String) -> [String] {
            fields.filter { Self.sameName($0.name, name) }.map(\.value)
        }

        /// The comma-separated list elements of every `name` line, trimmed, empty ones dropped
        /// (RFC 9110 §5.6.1): `Connection: keep-alive, Upgrade` as two elements.
        public func listElements(for name: String) -> [String] {
            values(for: name).flatMap { value in
                value.split(separator: ",").map { HTTP.trimmingWhitespace(Substring($0)) }.filter { !$0.isEmpty }
            }
        }

        /// Whether a list-valued field holds `token`, compared without regard to case
        /// (`Connection: Close`, RFC 9110 §7.6.1).
        public func listContains(_ name: String, token: String) -> Bool {
            listElements(for: name).contains { Self.sameName($0, token) }
        }

        public func contains(_ name: String) -> Bool {
            fields.contains { Self.sameName($0.name, name) }
        }

        /// Adds a line at the end, after any with the same name.
        public mutating func append(_ name: String, _ value: String) {
            fields.append(Field(name: name, value: value))
        }

        /// Replaces every line of `name` with one holding `value`.
        public mutating func set(_ name: String, _ value: String) {
            remove(name)
            append(name, value)
        }

        public mutating func remove(_ name: String) {
            fields.removeAll { Self.sameName($0.name, name) }
        }

        public var description: String {
            fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
        }

        /// Field names are tokens, ASCII only (RFC 9110 §5.1, §5.6.2), so an ASCII case fold
        /// is exact.
        static func sameName(_ a: String, _ b: String) -> Bool {
            a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { HTTP.asciiLowercase($0) == HTTP.asciiLowercase($1) }
        }
    }

    static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }

    /// Without leading and trailing SP and HTAB (OWS, RFC 9110 §5.6.3).
    static func trimmingWhitespace(_ text: Substring) -> String {
        let bytes = Array(text.utf8)
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
