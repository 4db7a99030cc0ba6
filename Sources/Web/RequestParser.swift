extension HTTP {
    /// Reads requests from a client's bytes as they arrive, in pieces split anywhere (RFC 9112
    /// §2: a request line, field lines, an empty line, then Content-Length bytes of content).
    /// It holds at most `limits.bufferedBytes` and refuses a request as soon as it can no
    /// longer be one Vigil accepts, with the status RFC 9110 and RFC 9112 name for the fault;
    /// docs/http.md lists them.
    ///
    /// `parse` consumes bytes only up to the end of one request, so the bytes of a pipelined
    /// next request stay with the caller until this one is answered. After a rejection the
    /// parser consumes nothing more: the connection is to be answered and closed.
    public struct RequestParser: Sendable {
        public enum Event: Hashable, Sendable {
            /// A whole request.
            case request(Request)
            /// The head of a request that waits for `100 Continue` before sending its content
            /// (RFC 9110 §10.1.1): the caller sends it, then goes on parsing.
            case continueExpected
            /// The request cannot be accepted; answer `rejection.response` and close.
            case rejected(Rejection)
        }

        /// What the parser is reading: states that say what comes next.
        enum State: Sendable {
            case expectingRequestLine
            case readingFieldLines(Head)
            case readingContent(Head, remaining: Int)
            case refused(Rejection)
        }

        /// What the request line and the field lines have said so far.
        struct Head: Sendable {
            var method: Method
            var target: RequestTarget
            var rawTarget: String
            var version: Version
            var headers = Headers()
            /// Octets of the header section so far, line terminators included.
            var sectionBytes = 0
            var body: [UInt8] = []
        }

        public let limits: Limits
        var state = State.expectingRequestLine
        /// The current line without its LF (a CR before the LF is still there).
        var line: [UInt8] = []
        /// The method token was found to be one Vigil implements (checked as soon as the
        /// first SP arrives, so that garbage is refused after a few bytes, not after 8 KiB).
        var methodAccepted = false

        public init(limits: Limits = Limits()) {
            self.limits = limits
        }

        /// Whether part of a request has been read: bytes other than the empty lines RFC 9112
        /// §2.2 lets a server skip before a request line.
        public var isInsideRequest: Bool {
            switch state {
            case .expectingRequestLine: !line.isEmpty
            case .readingFieldLines, .readingContent, .refused: true
            }
        }

        /// The bytes held: the partial line, the field values and the content so far.
        public var bufferedByteCount: Int {
            switch state {
            case .expectingRequestLine, .refused: line.count
            case let .readingFieldLines(head): line.count + head.sectionBytes
            case let .readingContent(head, _): head.sectionBytes + head.body.count
            }
        }

        /// The rejection the parser stopped at, if it did.
        public var rejection: Rejection? {
            if case let .refused(rejection) = state { rejection } else { nil }
        }

        /// Reads from the start of `bytes` until one event or the end of them. `consumed` is
        /// how many were taken; the rest belong to what follows the event.
        public mutating func parse(_ bytes: ArraySlice<UInt8>) -> (consumed: Int, event: Event?) {
            var index = bytes.startIndex
            while index < bytes.endIndex {
                switch state {
                case .refused:
                    return (index - bytes.startIndex, nil)
                case .readingContent(var head, let remaining):
                    // Released first, so the append below does not copy the content so far.
                    state = .expectingRequestLine
                    let taken = min(remaining, bytes.endIndex - index)
                    head.body += bytes[index..<(index + taken)]
                    index += taken
                    if taken == remaining {
                        return (index - bytes.startIndex, .request(head.request))
                    }
                    state = .readingContent(head, remaining: remaining - taken)
                case .expectingRequestLine, .readingFieldLines:
                    let newline = bytes[index...].firstIndex(of: HTTP.lf)
                    let end = newline ?? bytes.endIndex
                    line += bytes[index..<end]
                    index = newline.map { $0 + 1 } ?? end
                    if let rejection = lineRejectedSoFar(complete: newline != nil) {
                        return (index - bytes.startIndex, refuse(rejection))
                    }
                    if newline != nil, let event = endOfLine() {
                        return (index - bytes.startIndex, event)
                    }
                }
            }
            return (index - bytes.startIndex, nil)
        }

        mutating func refuse(_ rejection: Rejection) -> Event {
            state = .refused(rejection)
            line = []
            return .rejected(rejection)
        }
    }
}
