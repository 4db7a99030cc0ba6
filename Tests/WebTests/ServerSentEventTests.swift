import Testing
import Web

/// Event stream framing (WHATWG HTML §9.2.5, §9.2.6).
@Suite struct ServerSentEventTests {
    static func text(_ event: HTTP.ServerSentEvent) -> String { String(decoding: event.bytes, as: UTF8.self) }

    @Test func fieldsInOrderThenAnEmptyLine() {
        let event = HTTP.ServerSentEvent(event: "alarm", data: "low", id: "42", retryMilliseconds: 5000)
        #expect(Self.text(event) == "event: alarm\nid: 42\nretry: 5000\ndata: low\n\n")
        #expect(Self.text(HTTP.ServerSentEvent(data: "only")) == "data: only\n\n")
    }

    /// Each line of the data is its own `data:` line, whichever line break it had; the
    /// browser joins them with LF.
    @Test func multiLineDataBecomesSeveralDataLines() {
        #expect(Self.text(HTTP.ServerSentEvent(data: "a\nb\r\nc\rd")) == "data: a\ndata: b\ndata: c\ndata: d\n\n")
        #expect(Self.text(HTTP.ServerSentEvent(data: "")) == "data: \n\n")
        #expect(Self.text(HTTP.ServerSentEvent(data: "end\n")) == "data: end\ndata: \n\n")
    }

    /// A line break in `event` or `id` would start a field of its own; NUL makes a browser
    /// ignore an id. Both are removed.
    @Test func eventAndIDCannotBreakTheFraming() {
        let event = HTTP.ServerSentEvent(event: "a\nretry: 1", data: "x", id: "4\r\n2\u{0}")
        #expect(Self.text(event) == "event: aretry: 1\nid: 42\ndata: x\n\n")
    }

    @Test func commentsDispatchNothing() {
        #expect(Self.text(.comment(" keep-alive")) == ": keep-alive\n\n")
        #expect(Self.text(.comment("a\nb")) == ":ab\n\n")
    }

    @Test func negativeRetryIsLeftOut() {
        #expect(Self.text(HTTP.ServerSentEvent(data: "x", retryMilliseconds: -1)) == "data: x\n\n")
    }
}
