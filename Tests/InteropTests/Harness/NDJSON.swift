import Foundation

/// One JSON object as JSONSerialization gives it, with typed accessors for assertions.
typealias JSONObject = [String: Any]

/// Newline-delimited JSON as printed by `vigil ... --json` / `--events-json` and by the rigs.
enum NDJSON {
    enum ParseError: Error, Equatable, CustomStringConvertible {
        /// Line `line` (1-based) is not valid JSON.
        case invalidJSON(line: Int, text: String)
        /// Line `line` parsed, but its top level is not an object.
        case notAnObject(line: Int, text: String)
        /// A single-document output held no JSON at all.
        case empty

        var description: String {
            switch self {
            case .invalidJSON(let line, let text): return "line \(line) is not JSON: \(text.prefix(200))"
            case .notAnObject(let line, let text): return "line \(line) is not a JSON object: \(text.prefix(200))"
            case .empty: return "no JSON document in the output"
            }
        }
    }

    /// Parses every non-blank line; any other line is an error that names it (a stray log
    /// line on stdout breaks every consumer of the contract, so it must fail the test).
    static func parse(_ text: String) throws(ParseError) -> [JSONObject] {
        var objects: [JSONObject] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            objects.append(try parseObject(line, line: index + 1))
        }
        return objects
    }

    /// Parses an output that must be exactly one JSON object (possibly pretty-printed).
    static func parseDocument(_ text: String) throws(ParseError) -> JSONObject {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { throw .empty }
        return try parseObject(trimmed, line: 1)
    }

    static func parseObject(_ text: String, line: Int) throws(ParseError) -> JSONObject {
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        } catch {
            throw .invalidJSON(line: line, text: text)
        }
        guard let object = value as? JSONObject else { throw .notAnObject(line: line, text: text) }
        return object
    }
}

/// The complete lines of a growing NDJSON output, each parsed once: what a condition reads
/// again and again while a run goes on, which parsing the whole output each time would make
/// quadratic. A line that is not a JSON object is left out here; the finished output is
/// checked line by line (`NDJSON.parse`), where such a line fails the test.
final class NDJSONStream {
    private(set) var objects: [JSONObject] = []
    private var parsedBytes = 0

    /// The objects of every complete line of `output`, which extends what the last call saw.
    func update(_ output: Data) -> [JSONObject] {
        let start = output.startIndex + parsedBytes
        guard start < output.endIndex, let lastNewline = output[start...].lastIndex(of: UInt8(ascii: "\n")) else {
            return objects
        }
        for line in output[start..<lastNewline].split(separator: UInt8(ascii: "\n")) {
            if let object = try? NDJSON.parseObject(String(decoding: line, as: UTF8.self), line: 0) { objects.append(object) }
        }
        parsedBytes = lastNewline + 1 - output.startIndex
        return objects
    }
}

extension Dictionary where Key == String, Value == Any {
    func string(_ key: String) -> String? { self[key] as? String }

    /// Integers only: 72.5 is not a BPM, so fractional numbers answer nil, nor are booleans.
    func int(_ key: String) -> Int? {
        guard let value = self[key], !isJSONBoolean(value), let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        guard double == double.rounded(), abs(double) < 1e15 else { return nil }
        return Int(double)
    }

    func double(_ key: String) -> Double? {
        guard let value = self[key], !isJSONBoolean(value) else { return nil }
        return (value as? NSNumber)?.doubleValue
    }

    /// Only JSON `true`/`false`: a bridging `as? Bool` would also accept the numbers 0 and 1.
    func bool(_ key: String) -> Bool? {
        guard let value = self[key], isJSONBoolean(value) else { return nil }
        return value as? Bool
    }
    func object(_ key: String) -> JSONObject? { self[key] as? JSONObject }
    func objects(_ key: String) -> [JSONObject]? { self[key] as? [JSONObject] }
    func strings(_ key: String) -> [String]? { self[key] as? [String] }
    func doubles(_ key: String) -> [Double]? { (self[key] as? [NSNumber])?.map(\.doubleValue) }
    func has(_ key: String) -> Bool { self[key] != nil && !(self[key] is NSNull) }
}

/// Whether JSONSerialization produced this from `true`/`false` (a native Bool, or an NSNumber
/// holding a C `char`/`BOOL`), as opposed to the numbers 0 and 1, which bridge to Bool too.
func isJSONBoolean(_ value: Any) -> Bool {
    if type(of: value) == Bool.self { return true }
    guard let number = value as? NSNumber else { return false }
    let kind = String(cString: number.objCType)
    return kind == "c" || kind == "B"
}
