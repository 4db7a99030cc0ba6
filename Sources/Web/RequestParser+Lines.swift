extension HTTP.RequestParser {
    /// Whether the line so far already rules the request out: a method Vigil does not
    /// implement, or a line past its limit. `complete`: its LF has arrived.
    mutating func lineRejectedSoFar(complete: Bool) -> HTTP.Rejection? {
        switch state {
        case .expectingRequestLine:
            if complete && (line.isEmpty || line == [HTTP.cr]) { return nil }
            if !methodAccepted, let rejection = methodRejected(complete: complete) { return rejection }
            let content = line.count - (line.last == HTTP.cr ? 1 : 0)
            if content > limits.requestLineBytes {
                return HTTP.Rejection(.uriTooLong, "request line longer than \(limits.requestLineBytes) bytes")
            }
        case let .readingFieldLines(head):
            // This line and at least its LF, against what the section may still hold.
            if head.sectionBytes + line.count + 1 > limits.headerSectionBytes {
                return HTTP.Rejection(.requestHeaderFieldsTooLarge, "header section longer than \(limits.headerSectionBytes) bytes")
            }
        case .readingContent, .refused:
            break
        }
        return nil
    }

    /// RFC 9110 §9.1: an unimplemented method is 501; a line that does not start with a
    /// method token is not a request line at all (400). Decided from the first bytes alone
    /// (the token up to its SP, or one byte longer than any method Vigil implements), so
    /// garbage is refused after a few bytes, not after 8 KiB, and the verdict is the same
    /// however the bytes were split.
    private mutating func methodRejected(complete: Bool) -> HTTP.Rejection? {
        // A CR last is the line terminator or its first half, not part of the method.
        let text = line.last == HTTP.cr ? line.dropLast() : line[...]
        let space = text.firstIndex(of: HTTP.space)
        let token = text[..<(space ?? text.endIndex)]
        let longest = Self.longestMethod
        let start = token.prefix(longest + 1)
        guard start.allSatisfy(HTTP.isTokenCharacter) else {
            return HTTP.Rejection(.badRequest, "request line does not start with a method")
        }
        if start.count > longest { return HTTP.Rejection(.notImplemented, "method not implemented (GET, HEAD and POST are)") }
        guard space != nil else {
            return complete ? HTTP.Rejection(.badRequest, "request line is not method, target and version") : nil
        }
        guard !token.isEmpty else { return HTTP.Rejection(.badRequest, "request line does not start with a method") }
        guard HTTP.Method(token: token) != nil else {
            return HTTP.Rejection(.notImplemented, "method \(String(decoding: token, as: UTF8.self)) not implemented (GET, HEAD and POST are)")
        }
        methodAccepted = true
        return nil
    }

    static let longestMethod = HTTP.Method.allCases.map(\.rawValue.utf8.count).max() ?? 0

    /// A whole line has arrived (its LF consumed): the request line, a field line, or the
    /// empty line that ends the head.
    mutating func endOfLine() -> Event? {
        defer { line.removeAll(keepingCapacity: true) }
        let rawCount = line.count
        if line.last == HTTP.cr { line.removeLast() }
        // RFC 9112 §2.2: a bare CR is invalid; a recipient rejects it or replaces it, and a
        // CR that one reader replaces and another does not is how requests are smuggled.
        if line.contains(HTTP.cr) { return refuse(HTTP.Rejection(.badRequest, "bare CR inside a line")) }
        switch state {
        case .expectingRequestLine:
            // RFC 9112 §2.2: empty lines before a request line are skipped.
            guard !line.isEmpty else { return nil }
            do throws(HTTP.Rejection) {
                state = .readingFieldLines(try requestLine())
                methodAccepted = false
            } catch {
                return refuse(error)
            }
            return nil
        case var .readingFieldLines(head):
            state = .expectingRequestLine
            head.sectionBytes += rawCount + 1
            if line.isEmpty { return endOfHead(head) }
            do throws(HTTP.Rejection) {
                try addField(to: &head)
            } catch {
                return refuse(error)
            }
            state = .readingFieldLines(head)
            return nil
        case .readingContent, .refused:
            return nil
        }
    }

    /// request-line = method SP request-target SP HTTP-version (RFC 9112 §3), one SP each:
    /// the lenient whitespace §3 allows is the kind it warns lets requests be smuggled.
    private func requestLine() throws(HTTP.Rejection) -> Head {
        let parts = line.split(separator: HTTP.space, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[1].isEmpty else {
            throw HTTP.Rejection(.badRequest, "request line is not method, target and version separated by single spaces")
        }
        guard let method = HTTP.Method(token: parts[0]) else {
            throw HTTP.Rejection(.notImplemented, "method not implemented (GET, HEAD and POST are)")
        }
        let version = try Self.version(parts[2])
        let target = try HTTP.RequestTarget(parsing: parts[1])
        return Head(method: method, target: target, rawTarget: String(decoding: parts[1], as: UTF8.self), version: version)
    }

    /// HTTP-version = "HTTP" "/" DIGIT "." DIGIT, case-sensitive (RFC 9112 §2.3).
    private static func version(_ bytes: ArraySlice<UInt8>) throws(HTTP.Rejection) -> HTTP.Version {
        let text = Array(bytes)
        guard text.count == 8, text[0..<5].elementsEqual("HTTP/".utf8), text[6] == UInt8(ascii: "."),
              (0x30...0x39).contains(text[5]), (0x30...0x39).contains(text[7]) else {
            throw HTTP.Rejection(.badRequest, "request line does not end in an HTTP version")
        }
        // RFC 9110 §15.6.6: 505 for a major version the server does not support; RFC 9112 §2.3:
        // a higher minor version is read as the highest one implemented.
        guard text[5] == UInt8(ascii: "1") else { throw HTTP.Rejection(.httpVersionNotSupported, "only HTTP/1.0 and HTTP/1.1 are spoken here") }
        return text[7] == UInt8(ascii: "0") ? .http10 : .http11
    }

    /// field-line = field-name ":" OWS field-value OWS (RFC 9112 §5).
    private func addField(to head: inout Head) throws(HTTP.Rejection) {
        // RFC 9112 §5.2: obsolete line folding is refused with 400; §2.2: so is whitespace
        // before the first field line. Both are a line that starts with SP or HTAB.
        if line[0] == HTTP.space || line[0] == HTTP.tab {
            throw HTTP.Rejection(.badRequest, "obsolete line folding (a field line starting with whitespace)")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else {
            throw HTTP.Rejection(.badRequest, "field line without a name and a colon")
        }
        // RFC 9112 §5.1: no whitespace between name and colon, 400.
        guard line[..<colon].allSatisfy(HTTP.isTokenCharacter) else {
            throw HTTP.Rejection(.badRequest, "field name is not a token (whitespace before the colon?)")
        }
        let value = line[(colon + 1)...]
        // RFC 9110 §5.5: CR, LF and NUL in a value are rejected (or replaced); so are the other
        // controls, which no value Vigil reads holds.
        guard value.allSatisfy(HTTP.isFieldValueCharacter) else {
            throw HTTP.Rejection(.badRequest, "field value holds a control character")
        }
        guard head.headers.count < limits.headerFieldCount else {
            throw HTTP.Rejection(.requestHeaderFieldsTooLarge, "more than \(limits.headerFieldCount) header fields")
        }
        head.headers.append(String(decoding: line[..<colon], as: UTF8.self),
                            HTTP.trimmingWhitespace(Substring(String(decoding: value, as: UTF8.self))))
    }
}

extension HTTP.RequestParser.Head {
    var request: HTTP.Request {
        HTTP.Request(method: method, path: target.path, query: target.query, version: version, headers: headers, body: body, target: rawTarget)
    }
}
