import Readings

/// One transmitter line of the configuration: `TYPE [NAME] [key=value ...]`, e.g.
/// `heart-rate hr1 no-data-timeout=45s`. The name defaults to the type name; it is the
/// `DeviceID` readings are stamped with and the key under which its address is remembered.
public struct TransmitterConfiguration: Hashable, Sendable {
    public var typeName: String
    public var device: DeviceID
    public var options: [String: String]
    /// The files named by the type's file options (`TransmitterDeclaration.fileOptions`), keyed
    /// by option, read by whoever builds the configuration: a driver never reads a file.
    public var files: [String: AttachedFile]

    public init(typeName: String, device: DeviceID? = nil, options: [String: String] = [:], files: [String: AttachedFile] = [:]) {
        self.typeName = typeName
        self.device = device ?? DeviceID(typeName)
        self.options = options
        self.files = files
    }

    public init(parsing line: String) throws(TransmitterConfigurationError) {
        var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard !words.isEmpty else { throw .malformed("empty transmitter line") }
        let typeName = words.removeFirst()
        guard !typeName.contains("=") else { throw .malformed("the line must start with a transmitter type, not \"\(typeName)\"") }
        var device: DeviceID?
        if let first = words.first, !first.contains("=") {
            device = DeviceID(first)
            words.removeFirst()
        }
        var options: [String: String] = [:]
        for word in words {
            let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else { throw .malformed("expected key=value, found \"\(word)\"") }
            guard options.updateValue(String(parts[1]), forKey: String(parts[0])) == nil else {
                throw .malformed("option \(parts[0]) given twice")
            }
        }
        self.init(typeName: typeName, device: device, options: options)
    }

    /// Throws for any option not in `known`: a misspelt option must not be ignored silently.
    public func rejectUnknownOptions(known: Set<String>) throws(TransmitterConfigurationError) {
        if let unknown = options.keys.sorted().first(where: { !known.contains($0) }) {
            throw .unknownOption(unknown, type: typeName)
        }
    }

    /// A duration option: `30s`, `500ms`, `2m`, `1h`, or a bare number of seconds.
    public func duration(_ key: String, default value: Duration) throws(TransmitterConfigurationError) -> Duration {
        guard let text = options[key] else { return value }
        let units: [(suffix: String, seconds: Int64, milliseconds: Int64)] =
            [("ms", 0, 1), ("s", 1, 0), ("m", 60, 0), ("h", 3600, 0)]
        for unit in units where text.hasSuffix(unit.suffix) {
            guard let number = Int64(text.dropLast(unit.suffix.count)), number > 0 else { break }
            if unit.milliseconds > 0 { return .milliseconds(number) }
            // A typo like 99999999999999999h must be an error, not an overflow trap.
            let (seconds, overflow) = number.multipliedReportingOverflow(by: unit.seconds)
            guard !overflow else { break }
            return .seconds(seconds)
        }
        if let number = Int64(text), number > 0 { return .seconds(number) }
        throw .invalidOption(key, value: text, expected: "a positive duration such as 30s, 500ms, 2m")
    }
}

/// The contents of a file an option names (a Dexcom G7's credentials), or why it could not be read.
public enum AttachedFile: Hashable, Sendable {
    case contents([UInt8])
    case unreadable(reason: String)
}

public enum TransmitterConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    case malformed(String)
    case unknownType(String, known: [String])
    case unknownOption(String, type: String)
    case invalidOption(String, value: String, expected: String)

    public var description: String {
        switch self {
        case let .malformed(reason): reason
        case let .unknownType(name, known): "unknown transmitter type \"\(name)\" (known: \(known.joined(separator: ", ")))"
        case let .unknownOption(key, type): "unknown option \"\(key)\" for \(type)"
        case let .invalidOption(key, value, expected): "option \(key)=\(value): expected \(expected)"
        }
    }
}
