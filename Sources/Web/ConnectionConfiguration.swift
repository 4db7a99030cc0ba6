extension HTTP.Connection {
    /// One client's bounds in time and memory (docs/http.md, "Limits" and "Time").
    public struct Configuration: Hashable, Sendable {
        public var limits: HTTP.Limits
        /// Requests answered on one connection before it is closed (`Connection: close` on the
        /// last answer): a client cannot hold a connection for ever by keeping it busy, and one
        /// that needs more opens another.
        public var maximumRequests: Int
        /// How long a connection may sit with no request started before it is closed, without
        /// an answer (RFC 9112 §9.5 lets a server close an idle connection; a 408 there would
        /// reach a browser that sent nothing and confuse it).
        public var idleTimeout: Duration
        /// How long a request may take to arrive whole (head and content) from its first byte;
        /// past it the client gets 408 Request Timeout and is closed (RFC 9110 §15.5.9). This is
        /// what ends a slowloris client, which sends a header line every few seconds.
        public var requestTimeout: Duration
        /// The most unsent output a connection holds before more is added. A response or event
        /// that would take it past this, while earlier output is still unsent, closes the
        /// connection instead: a client that does not read cannot make Vigil hold its answers.
        /// A response on its own may be larger (the application chose it).
        public var maximumQueuedOutput: Int
        /// How long output may wait with none of it taken by the client before the connection
        /// is closed.
        public var sendTimeout: Duration
        /// Unparsed input held; `readCapacity` never lets the owner read past it.
        public var maximumBufferedInput: Int
        /// Input parsed per connection per turn of the loop, so a client that floods cannot
        /// keep the loop parsing its bytes while others wait.
        public var bytesParsedPerTurn: Int
        /// A comment is sent on an event stream that has been quiet this long; nil sends none.
        public var eventStreamKeepAlive: Duration?
        /// After the last answer the write side is shut and what the client still sends is read
        /// and dropped for this long, so that its unread bytes do not make the kernel reset the
        /// connection before the answer is read (RFC 9112 §9.6).
        public var lingerTimeout: Duration

        public init(limits: HTTP.Limits = HTTP.Limits(), maximumRequests: Int = 100, idleTimeout: Duration = .seconds(15),
                    requestTimeout: Duration = .seconds(10), maximumQueuedOutput: Int = 256 * 1024, sendTimeout: Duration = .seconds(10),
                    maximumBufferedInput: Int = 16 * 1024, bytesParsedPerTurn: Int = 16 * 1024,
                    eventStreamKeepAlive: Duration? = .seconds(15), lingerTimeout: Duration = .seconds(2)) {
            self.limits = limits
            self.maximumRequests = maximumRequests
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
            self.maximumQueuedOutput = maximumQueuedOutput
            self.sendTimeout = sendTimeout
            self.maximumBufferedInput = maximumBufferedInput
            self.bytesParsedPerTurn = bytesParsedPerTurn
            self.eventStreamKeepAlive = eventStreamKeepAlive
            self.lingerTimeout = lingerTimeout
        }
    }
}
