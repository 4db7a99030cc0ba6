/// Why bytes could not be decoded. Every decoder in Vigil throws this (or wraps it), so a
/// malformed packet is reported with the field that was wrong rather than trapping.
public enum WireError: Error, Equatable, Sendable, CustomStringConvertible {
    case truncated(field: String, needed: Int, available: Int)
    case trailingBytes(what: String, count: Int)
    case invalidValue(field: String, value: Int)
    case malformed(String)

    public var description: String {
        switch self {
        case let .truncated(field, needed, available):
            "truncated at \(field): needed \(needed) byte(s), \(available) left"
        case let .trailingBytes(what, count):
            "\(count) unexpected trailing byte(s) after \(what)"
        case let .invalidValue(field, value):
            "invalid \(field): \(value)"
        case let .malformed(reason):
            reason
        }
    }
}
