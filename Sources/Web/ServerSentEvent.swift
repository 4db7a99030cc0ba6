extension HTTP {
    /// One message of an event stream (`text/event-stream`, WHATWG HTML Living Standard
    /// §9.2.5 "Parsing an event stream", §9.2.6 "Interpreting an event stream"): `event:`,
    /// `id:`, `retry:` and one `data:` line per line of the data, ended by an empty line; or a
    /// comment line (`:` first), which a browser ignores and which keeps an idle stream from
    /// being dropped by proxies (§9.2.7 suggests one every 15 seconds or so).
    ///
    /// Line ends are LF. A CR or LF inside `event` or `id`, or a NUL inside `id` (which makes
    /// a browser ignore the field, §9.2.6), cannot be sent, so they are removed; the data's
    /// own line breaks (LF, CR or CR LF) become separate `data:` lines, which the browser joins
    /// with LF again.
    public struct ServerSentEvent: Hashable, Sendable {
        public var event: String?
        public var data: String
        public var id: String?
        /// The reconnection time the browser should use, in milliseconds.
        public var retryMilliseconds: Int?
        /// When set, the message is only this comment (no event is dispatched).
        public var comment: String?

        public init(event: String? = nil, data: String, id: String? = nil, retryMilliseconds: Int? = nil) {
            self.event = event
            self.data = data
            self.id = id
            self.retryMilliseconds = retryMilliseconds
        }

        /// A comment: nothing for the page, traffic for the connection.
        public static func comment(_ text: String) -> ServerSentEvent {
            var message = ServerSentEvent(data: "")
            message.comment = text
            return message
        }

        /// The message as it is written on the stream.
        public var bytes: [UInt8] {
            if let comment {
                return Array(":\(Self.oneLine(comment))\n\n".utf8)
            }
            var text = ""
            if let event { text += "event: \(Self.oneLine(event))\n" }
            if let id { text += "id: \(Self.oneLine(id).filter { $0 != "\u{0}" })\n" }
            if let retryMilliseconds, retryMilliseconds >= 0 { text += "retry: \(retryMilliseconds)\n" }
            for line in Self.lines(data) { text += "data: \(line)\n" }
            return Array((text + "\n").utf8)
        }

        private static func oneLine(_ text: String) -> String {
            String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
        }

        /// The data split where a browser would split it: at CR LF, LF or CR (§9.2.5).
        private static func lines(_ data: String) -> [Substring] {
            data.replacing("\r\n", with: "\n").split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" }
        }
    }
}
