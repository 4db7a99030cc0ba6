import Web

/// Feeds a parser the way a connection does: each piece until it is used up, stopping at a
/// rejection (after which the parser takes nothing).
struct ParserHarness {
    var parser: HTTP.RequestParser
    var events: [HTTP.RequestParser.Event] = []
    /// Bytes left over after a rejection.
    var unconsumed = 0

    init(limits: HTTP.Limits = HTTP.Limits()) {
        parser = HTTP.RequestParser(limits: limits)
    }

    mutating func feed(_ piece: some Collection<UInt8>) {
        var rest = Array(piece)[...]
        while !rest.isEmpty {
            let (consumed, event) = parser.parse(rest)
            rest = rest.dropFirst(consumed)
            if let event { events.append(event) }
            if consumed == 0 && event == nil { break }
        }
        unconsumed += rest.count
    }

    /// The events of `bytes` fed whole.
    static func events(_ bytes: [UInt8], limits: HTTP.Limits = HTTP.Limits()) -> [HTTP.RequestParser.Event] {
        var harness = ParserHarness(limits: limits)
        harness.feed(bytes)
        return harness.events
    }

    static func events(_ text: String, limits: HTTP.Limits = HTTP.Limits()) -> [HTTP.RequestParser.Event] {
        events(Array(text.utf8), limits: limits)
    }

    /// The one request `text` holds, or nil.
    static func request(_ text: String, limits: HTTP.Limits = HTTP.Limits()) -> HTTP.Request? {
        guard case let .request(request)? = events(text, limits: limits).first else { return nil }
        return request
    }

    /// The rejection `text` ends in, or nil.
    static func rejection(_ text: String, limits: HTTP.Limits = HTTP.Limits()) -> HTTP.Rejection? {
        rejection(Array(text.utf8), limits: limits)
    }

    static func rejection(_ bytes: [UInt8], limits: HTTP.Limits = HTTP.Limits()) -> HTTP.Rejection? {
        guard case let .rejected(rejection)? = events(bytes, limits: limits).last else { return nil }
        return rejection
    }
}

extension String {
    /// The text with every LF made CR LF, so tests can be written with plain line breaks.
    var crlf: String { replacing("\n", with: "\r\n") }
}
