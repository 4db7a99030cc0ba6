extension HTTP {
    /// One response read as its bytes come, however they are split (RFC 9112): the status
    /// line (§4), the field lines (§5), the body framed by Content-Length, the chunked
    /// transfer coding (§7.1) or the close of the connection (§6.3), and interim 1xx
    /// responses passed over (RFC 9110 §15.2). Everything it holds is bounded by `limits`;
    /// framing it cannot trust is `malformedResponse`, never a guess (docs/http-client.md
    /// "Reading a response").
    public struct ResponseParser: Sendable {
        /// How a parse stands after bytes or the close.
        public enum Outcome: Sendable, Equatable {
            case needsMore
            case complete(ClientResponse)
            case failed(ClientFailure)
        }

        public struct Limits: Sendable, Equatable {
            /// A status line and its field lines, line ends included (and a trailer section).
            public var headerBytes: Int
            /// Field lines in one header section.
            public var headerFields: Int
            /// The body once its framing is removed.
            public var bodyBytes: Int

            public init(headerBytes: Int = 64 * 1024, headerFields: Int = 256, bodyBytes: Int = 4 << 20) {
                self.headerBytes = headerBytes
                self.headerFields = headerFields
                self.bodyBytes = bodyBytes
            }

            /// A chunk-size line with its extensions, which Vigil ignores (RFC 9112 §7.1.1).
            static let chunkSizeLineBytes = 4096
            /// Interim responses before the final one: a server cannot keep an exchange in them.
            static let interimResponses = 8
        }

        private enum State: Sendable {
            case statusLine
            case fieldLines
            case body(remaining: Int)
            case bodyToClose
            case chunkSize
            case chunkData(remaining: Int)
            case chunkDataEnd
            case trailerLines
            case ended
        }

        public let limits: Limits
        /// A response to HEAD has no body whatever its fields say (RFC 9110 §9.3.2).
        private let requestWasHead: Bool
        private var state = State.statusLine
        /// Bytes received and not yet consumed start at `start`; no LF is before `scanned`.
        private var buffer: [UInt8] = []
        private var start = 0
        private var scanned = 0
        private var status = 0
        private var isHTTP10 = false
        private var fields: [Headers.Field] = []
        private var sectionBytes = 0
        private var interim = 0
        private var body: [UInt8] = []

        public init(limits: Limits = Limits(), requestWasHead: Bool = false) {
            self.limits = limits
            self.requestWasHead = requestWasHead
        }

        /// Whether any byte of a response has arrived.
        public private(set) var hasStarted = false

        /// Bytes from the connection. After `.complete` or `.failed` more bytes change nothing.
        public mutating func receive(_ bytes: some Collection<UInt8>) -> Outcome {
            if case .ended = state { return .needsMore }
            guard !bytes.isEmpty else { return .needsMore }
            hasStarted = true
            buffer.append(contentsOf: bytes)
            let outcome = parse()
            compact()
            return outcome
        }

        /// The server closed the connection: the end of a body read to the close, otherwise a
        /// response cut short.
        public mutating func peerClosed() -> Outcome {
            switch state {
            case .ended:
                return .needsMore
            case .bodyToClose:
                return complete()
            default:
                state = .ended
                return .failed(.closedBeforeResponse)
            }
        }

        // MARK: The states

        private mutating func parse() -> Outcome {
            while true {
                let step: Outcome?
                switch state {
                case .ended: return .needsMore
                case .statusLine: step = readLine(limit: limits.headerBytes - sectionBytes) { $0.statusLine($1) }
                case .fieldLines: step = readLine(limit: limits.headerBytes - sectionBytes) { $0.fieldLine($1) }
                case .trailerLines: step = readLine(limit: limits.headerBytes - sectionBytes) { $0.trailerLine($1) }
                case .chunkSize: step = readLine(limit: Limits.chunkSizeLineBytes) { $0.chunkSizeLine($1) }
                case .chunkDataEnd: step = readLine(limit: 0) { $0.chunkDataEnd($1) }
                case let .body(remaining): step = takeBody(remaining) { $0.state = .body(remaining: $1) } whenDone: { $0.complete() }
                case let .chunkData(remaining): step = takeBody(remaining) { $0.state = .chunkData(remaining: $1) } whenDone: { $0.state = .chunkDataEnd; return nil }
                case .bodyToClose:
                    let available = buffer.count - start
                    if body.count + available > limits.bodyBytes { return fail(.responseTooLarge) }
                    body.append(contentsOf: buffer[start...])
                    start = buffer.count
                    return .needsMore
                }
                if let step {
                    if case .needsMore = step { return .needsMore }
                    state = .ended
                    return step
                }
            }
        }

        /// One line to `handle` (without its CR LF or bare LF, RFC 9112 §2.2), or `.needsMore`
        /// while its end has not come. `limit`: the most its content may hold.
        private mutating func readLine(limit: Int, _ handle: (inout Self, ArraySlice<UInt8>) -> Outcome?) -> Outcome? {
            let from = max(start, scanned)
            guard let end = buffer[from...].firstIndex(of: HTTP.lf) else {
                scanned = buffer.count
                // A CR may still be the first half of the line's end.
                let pending = buffer.count - start - (buffer.last == HTTP.cr ? 1 : 0)
                return pending > limit ? lineTooLong() : .needsMore
            }
            var line = buffer[start..<end]
            if line.last == HTTP.cr { line = line.dropLast() }
            if line.count > limit { return lineTooLong() }
            if line.contains(HTTP.cr) { return fail(.malformedResponse("a bare CR in a line")) }
            if isInHeader {
                sectionBytes += end + 1 - start
                if sectionBytes > limits.headerBytes { return fail(.responseTooLarge) }
            }
            start = end + 1
            scanned = start
            return handle(&self, line)
        }

        private var isInHeader: Bool {
            switch state {
            case .statusLine, .fieldLines, .trailerLines: true
            default: false
            }
        }

        private mutating func lineTooLong() -> Outcome {
            switch state {
            case .chunkSize: fail(.malformedResponse("a chunk-size line longer than \(Limits.chunkSizeLineBytes) bytes"))
            case .chunkDataEnd: fail(.malformedResponse("a chunk's data is not followed by CRLF"))
            default: fail(.responseTooLarge)
            }
        }

        /// Body bytes toward `remaining`; `update` records what is left, `whenDone` runs at 0.
        private mutating func takeBody(_ remaining: Int, update: (inout Self, Int) -> Void,
                                       whenDone: (inout Self) -> Outcome?) -> Outcome? {
            let count = min(remaining, buffer.count - start)
            body.append(contentsOf: buffer[start..<(start + count)])
            start += count
            scanned = start
            guard remaining - count == 0 else {
                update(&self, remaining - count)
                return .needsMore
            }
            return whenDone(&self)
        }

        private mutating func fail(_ failure: ClientFailure) -> Outcome {
            state = .ended
            return .failed(failure)
        }

        private mutating func complete() -> Outcome {
            state = .ended
            return .complete(ClientResponse(status: status, headers: Headers(fields), body: body))
        }

        /// Drops what was consumed once it is most of the buffer, so a long body read in small
        /// pieces is not copied again and again.
        private mutating func compact() {
            guard start > 0, start * 2 >= buffer.count else { return }
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }

        // MARK: Lines

        /// `HTTP/1.1 200 OK` (RFC 9112 §4): the version's major digit must be 1, the code three
        /// digits from 100 to 599; the reason phrase is ignored, as §4 allows.
        private mutating func statusLine(_ line: ArraySlice<UInt8>) -> Outcome? {
            let bytes = Array(line)
            let prefix = Array("HTTP/".utf8)
            guard bytes.count >= 12, Array(bytes[0..<5]) == prefix, bytes[6] == UInt8(ascii: "."),
                  isDigit(bytes[5]), isDigit(bytes[7]), bytes[8] == HTTP.space else {
                return fail(.malformedResponse("the status line is not \"HTTP/1.x NNN reason\""))
            }
            guard bytes[5] == UInt8(ascii: "1") else {
                return fail(.malformedResponse("HTTP version \(bytes[5] - 0x30).\(bytes[7] - 0x30) is not HTTP/1.x"))
            }
            let code = bytes[9..<12]
            guard code.allSatisfy(isDigit), bytes.count == 12 || bytes[12] == HTTP.space,
                  bytes.dropFirst(12).allSatisfy({ $0 == HTTP.tab || $0 >= 0x20 && $0 != 0x7F }) else {
                return fail(.malformedResponse("the status line is not \"HTTP/1.x NNN reason\""))
            }
            let number = code.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            guard (100...599).contains(number) else { return fail(.malformedResponse("status code \(number) is not 100 to 599")) }
            status = number
            isHTTP10 = bytes[7] == UInt8(ascii: "0")
            fields = []
            state = .fieldLines
            return nil
        }

        /// `name: value` (RFC 9112 §5), an obs-fold continuation (§5.2: joined with a space),
        /// or the empty line that ends the section.
        private mutating func fieldLine(_ line: ArraySlice<UInt8>) -> Outcome? {
            if line.isEmpty { return endOfHead() }
            if line.first == HTTP.space || line.first == HTTP.tab {
                guard let last = fields.indices.last else { return fail(.malformedResponse("a header line starts with whitespace")) }
                guard line.allSatisfy(HTTP.isFieldValueCharacter) else { return fail(.malformedResponse("a control character in a header value")) }
                let more = HTTP.trimmingWhitespace(Substring(decoding: line, as: UTF8.self))
                fields[last].value = fields[last].value.isEmpty ? more : fields[last].value + " " + more
                return nil
            }
            guard let field = parseField(line) else { return fail(.malformedResponse(fieldProblem(line))) }
            guard fields.count < limits.headerFields else { return fail(.responseTooLarge) }
            fields.append(field)
            return nil
        }

        /// A trailer field (RFC 9112 §7.1.2): checked like a header field, then dropped, since
        /// nothing Vigil reads comes in one (RFC 9110 §6.5.1 lets a recipient discard them).
        private mutating func trailerLine(_ line: ArraySlice<UInt8>) -> Outcome? {
            if line.isEmpty { return complete() }
            guard parseField(line) != nil else { return fail(.malformedResponse("trailer: " + fieldProblem(line))) }
            return nil
        }

        private func parseField(_ line: ArraySlice<UInt8>) -> Headers.Field? {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[..<colon].allSatisfy(HTTP.isTokenCharacter),
                  line[(colon + 1)...].allSatisfy(HTTP.isFieldValueCharacter) else { return nil }
            return Headers.Field(name: String(decoding: line[..<colon], as: UTF8.self),
                                 value: HTTP.trimmingWhitespace(Substring(decoding: line[(colon + 1)...], as: UTF8.self)))
        }

        private func fieldProblem(_ line: ArraySlice<UInt8>) -> String {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { return "a header line without a name and a colon" }
            // RFC 9112 §5.1: no whitespace between the name and the colon.
            if !line[..<colon].allSatisfy(HTTP.isTokenCharacter) { return "a header name that is not a token" }
            return "a control character in a header value"
        }

        /// The header section has ended: an interim response is passed over, the final one's
        /// body framing decided (RFC 9112 §6.3).
        private mutating func endOfHead() -> Outcome? {
            let headers = Headers(fields)
            sectionBytes = 0
            if (100..<200).contains(status) {
                // 101 switches protocols, which Vigil never asks for (RFC 9110 §15.2.2).
                if status == 101 { return fail(.malformedResponse("101 Switching Protocols to a request that asked for no upgrade")) }
                interim += 1
                if interim > Limits.interimResponses { return fail(.malformedResponse("more than \(Limits.interimResponses) interim (1xx) responses")) }
                state = .statusLine
                return nil
            }
            let codings = headers.listElements(for: "Content-Encoding").filter { $0.lowercased() != "identity" }
            if !codings.isEmpty {
                return fail(.malformedResponse("the body is encoded (\(codings.joined(separator: ", "))), which Vigil does not decode"))
            }
            if requestWasHead || status == 204 || status == 304 { return complete() }
            if headers.contains("Transfer-Encoding") {
                // A response with both is how responses are split (RFC 9112 §6.3 item 3); in
                // HTTP/1.0 the framing is faulty (§6.1).
                if headers.contains("Content-Length") { return fail(.malformedResponse("both Transfer-Encoding and Content-Length")) }
                if isHTTP10 { return fail(.malformedResponse("Transfer-Encoding in an HTTP/1.0 response")) }
                let transfer = headers.listElements(for: "Transfer-Encoding").map { $0.lowercased() }
                guard transfer == ["chunked"] else {
                    return fail(.malformedResponse("the transfer coding \(transfer.joined(separator: ", ")) is not chunked alone"))
                }
                state = .chunkSize
                return nil
            }
            if headers.contains("Content-Length") {
                let values = headers.listElements(for: "Content-Length")
                // "42, 42" is one length said twice (§6.3 item 5); anything else is not a length.
                guard let first = values.first, values.allSatisfy({ $0 == first }),
                      !first.isEmpty, first.utf8.allSatisfy(isDigit) else {
                    return fail(.malformedResponse("Content-Length is not one decimal number"))
                }
                guard let length = Int(first), length <= limits.bodyBytes else { return fail(.responseTooLarge) }
                if length == 0 { return complete() }
                state = .body(remaining: length)
                return nil
            }
            state = .bodyToClose
            return nil
        }

        /// `1a;name=value` (RFC 9112 §7.1): the size in hex; extensions are ignored (§7.1.1).
        private mutating func chunkSizeLine(_ line: ArraySlice<UInt8>) -> Outcome? {
            let digits = line.prefix { HTTP.hexValue($0) != nil }
            let rest = line[digits.endIndex...].drop { $0 == HTTP.space || $0 == HTTP.tab }
            guard !digits.isEmpty, rest.isEmpty || rest.first == UInt8(ascii: ";") else {
                return fail(.malformedResponse("a chunk size that is not hexadecimal"))
            }
            let significant = digits.drop { $0 == UInt8(ascii: "0") }
            guard significant.count <= 15 else { return fail(.responseTooLarge) }
            let size = significant.reduce(0) { $0 << 4 | Int(HTTP.hexValue($1)!) }
            if size == 0 {
                state = .trailerLines
                return nil
            }
            guard body.count + size <= limits.bodyBytes else { return fail(.responseTooLarge) }
            state = .chunkData(remaining: size)
            return nil
        }

        private mutating func chunkDataEnd(_ line: ArraySlice<UInt8>) -> Outcome? {
            state = .chunkSize
            return nil
        }

        private func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    }
}
