/// One request on the status socket (Vigil's own line protocol): the client writes a
/// single line, `STATUS` (the text for people) or `STATUS JSON` (one JSON object), ended by
/// LF or CR LF; the daemon answers and closes. Anything else is answered with one line,
/// `ERR <reason>`, and the connection closed. Words are matched without regard to case, so a
/// person typing into `nc -U` or `socat` is not punished for lower case.
public enum StatusRequest: Equatable, Sendable {
    case text
    case json

    /// The longest request line accepted, terminator included: `STATUS JSON\r\n` is 13 bytes,
    /// and a client that sends more without a line end is not speaking this protocol.
    public static let maximumLineLength = 256

    /// Why a request was refused; `description` is the text after `ERR `.
    public enum Rejection: Error, Equatable, Sendable, CustomStringConvertible {
        /// A line of text that is not a request this daemon knows.
        case unknown(String)
        /// No line end within `maximumLineLength` bytes.
        case tooLong(limit: Int)
        /// Bytes that are not printable UTF-8 text (a binary protocol, a port scanner).
        case notText
        /// The client closed its side without sending anything.
        case empty

        public var description: String {
            switch self {
            case let .unknown(line): "unknown request \"\(line)\": send STATUS or STATUS JSON"
            case let .tooLong(limit): "request longer than \(limit) bytes: send STATUS or STATUS JSON"
            case .notText: "request is not a line of text: send STATUS or STATUS JSON"
            case .empty: "no request: send STATUS or STATUS JSON"
            }
        }
    }

    /// Parses one line without its terminator.
    public init(line: some Collection<UInt8>) throws(Rejection) {
        // Printable ASCII and UTF-8 only: a NUL or an escape is not someone asking for status.
        guard line.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }), let text = String(validating: line, as: UTF8.self) else {
            throw .notText
        }
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map { $0.uppercased() }
        switch words {
        case ["STATUS"]: self = .text
        case ["STATUS", "JSON"]: self = .json
        case []: throw .empty
        default: throw .unknown(String(text.prefix(64)))
        }
    }

    /// The answer line for a refused request.
    public static func errorLine(_ rejection: Rejection) -> String { "ERR \(rejection)\n" }

    /// Gathers a client's bytes until its request line is complete, refusing it as soon as it
    /// cannot be one (too long, not text): the daemon never holds more than
    /// `maximumLineLength` bytes for a client.
    public struct Reader: Sendable {
        private var buffer: [UInt8] = []
        public private(set) var outcome: Result<StatusRequest, Rejection>?

        public init() {}

        /// Feeds bytes as they arrive; returns the outcome once there is one (then ignores more).
        @discardableResult
        public mutating func receive(_ bytes: some Collection<UInt8>) -> Result<StatusRequest, Rejection>? {
            guard outcome == nil else { return outcome }
            for byte in bytes {
                if byte == 0x0A {
                    if buffer.last == 0x0D { buffer.removeLast() }
                    outcome = Self.parse(buffer)
                    return outcome
                }
                buffer.append(byte)
                if buffer.count >= StatusRequest.maximumLineLength {
                    outcome = .failure(.tooLong(limit: StatusRequest.maximumLineLength))
                    return outcome
                }
            }
            return nil
        }

        /// The client closed its side: a last line without its terminator still counts.
        @discardableResult
        public mutating func endOfStream() -> Result<StatusRequest, Rejection> {
            if let outcome { return outcome }
            if buffer.last == 0x0D { buffer.removeLast() }
            let result = buffer.isEmpty ? .failure(.empty) : Self.parse(buffer)
            outcome = result
            return result
        }

        private static func parse(_ line: [UInt8]) -> Result<StatusRequest, Rejection> {
            do throws(Rejection) {
                return .success(try StatusRequest(line: line))
            } catch {
                return .failure(error)
            }
        }
    }
}
