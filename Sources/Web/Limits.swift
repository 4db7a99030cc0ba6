extension HTTP {
    /// The most a request may hold, so that a client can make Vigil hold no more than about
    /// 100 KiB for it however it misbehaves (docs/http.md, "Limits"). A request past a limit is
    /// refused with the status RFC 9110 names for it, as soon as the limit is passed, without
    /// waiting for the rest.
    public struct Limits: Hashable, Sendable {
        /// The request line without its line terminator; past it, 414 URI Too Long (RFC 9112
        /// §3: the target is what makes a request line long). RFC 9112 §3 recommends at least
        /// 8,000 octets; Vigil's longest, a Nightscout query, is a few hundred.
        public var requestLineBytes: Int
        /// Field lines; past it, 431 Request Header Fields Too Large (RFC 6585 §5).
        public var headerFieldCount: Int
        /// The header section: the field lines and the empty line that ends it, line
        /// terminators included; past it, 431.
        public var headerSectionBytes: Int
        /// Content-Length; past it, 413 Content Too Large (RFC 9110 §15.5.14). Vigil's bodies
        /// are small forms and JSON (a snooze, an acknowledgement).
        public var bodyBytes: Int

        public init(requestLineBytes: Int = 8192, headerFieldCount: Int = 64, headerSectionBytes: Int = 16384, bodyBytes: Int = 65536) {
            self.requestLineBytes = requestLineBytes
            self.headerFieldCount = headerFieldCount
            self.headerSectionBytes = headerSectionBytes
            self.bodyBytes = bodyBytes
        }

        /// The most a parser holds between calls: a request line and its CR, a header section,
        /// a body.
        public var bufferedBytes: Int { requestLineBytes + 1 + headerSectionBytes + bodyBytes }
    }
}
