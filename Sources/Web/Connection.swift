import Clocks

extension HTTP {
    /// One client's connection, sans-IO (docs/http.md, "Driving it"): the owner passes in
    /// what the socket did (`receive`, `peerClosed`, `sent`), what the application answered
    /// (`respond`, the event stream calls) and the time (`advance`); the connection keeps the
    /// unsent output (`output`), says how much may be read (`readCapacity`), hands out
    /// requests and the moments to shut or close the socket (`takeActions`), and names its
    /// next deadline. It reads no clock and touches no socket.
    ///
    /// Requests are answered in the order they came (RFC 9112 §9.3.2): the next pipelined one
    /// is parsed only once the answer to the one before has been taken by the client.
    public struct Connection: Sendable {
        public enum Action: Hashable, Sendable {
            /// A whole request for the application, which answers with `respond` (or opens an
            /// event stream), now or on a later turn.
            case handle(Request)
            /// Everything is sent and nothing more will be: shut the socket's write side
            /// (`shutdown(SHUT_WR)`) and keep reading; the connection says `close` later.
            case shutdownWrite
            /// Close the socket and forget the connection.
            case close(CloseReason)
        }

        public enum CloseReason: Hashable, Sendable, CustomStringConvertible {
            /// The client closed its side.
            case peerClosed
            /// No request started within the idle timeout.
            case idle
            /// The last answer was sent (a `Connection: close`, a refusal, the request limit,
            /// the end of an event stream).
            case finished
            /// The client did not take its output: the send timeout or the output bound.
            case notReading
            /// The server was full and had no room even to refuse it with 503.
            case overCapacity

            public var description: String {
                switch self {
                case .peerClosed: "the client closed the connection"
                case .idle: "idle too long"
                case .finished: "finished"
                case .notReading: "the client is not reading its answers"
                case .overCapacity: "too many connections"
                }
            }
        }

        /// What the connection is doing: states that read as sentences.
        enum Phase: Sendable {
            /// Waiting for a request, or reading one.
            case awaitingRequest
            /// The application has the request; the answer goes to a client that asked with
            /// this method, and may keep the connection open if `persistence` allows it.
            case handlingRequest(Method, ResponseSerializer.Persistence)
            /// An event stream is open: events are appended until it ends.
            case streamingEvents
            /// The last answer is queued; once it is sent the write side is shut.
            case finishingOutput
            /// The write side is shut; input is read and dropped until the client closes or
            /// the linger time is over.
            case lingering(until: MonotonicInstant)
            case closed
        }

        public let configuration: Configuration
        var phase = Phase.awaitingRequest
        var parser: RequestParser
        var input: [UInt8] = []
        var inputStart = 0
        var outputBytes: [UInt8] = []
        var outputStart = 0
        var actions: [Action] = []
        /// Requests handed to the application so far.
        public internal(set) var requestCount = 0
        var peerHasClosed = false
        /// When the connection last had nothing to do (opened, or its output all taken).
        var idleSince: MonotonicInstant
        /// The first byte of the request being read arrived then.
        var requestStartedAt: MonotonicInstant?
        /// Output last went from empty to waiting, or the client last took some.
        var outputProgressAt: MonotonicInstant
        /// The event stream last sent something.
        var eventStreamSentAt: MonotonicInstant?
        /// The time of the last call: `nextDeadline` when parsing is left for the next turn.
        var lastNow: MonotonicInstant

        public init(configuration: Configuration = Configuration(), at now: MonotonicInstant) {
            self.configuration = configuration
            parser = RequestParser(limits: configuration.limits)
            idleSince = now
            outputProgressAt = now
            lastNow = now
        }

        // MARK: What the owner asks

        /// The unsent output, oldest first: write as much as the socket takes, then `sent`.
        public var output: ArraySlice<UInt8> { outputBytes[outputStart...] }

        /// How many bytes the owner may read from the socket now; 0: do not poll for input.
        public var readCapacity: Int {
            switch phase {
            case .awaitingRequest, .handlingRequest:
                peerHasClosed ? 0 : max(0, configuration.maximumBufferedInput - (input.count - inputStart))
            case .streamingEvents, .lingering:
                // Read only to notice the client closing; what it sends is dropped.
                peerHasClosed ? 0 : 4096
            case .finishingOutput, .closed:
                0
            }
        }

        /// Unparsed input bytes held.
        public var bufferedInputCount: Int { input.count - inputStart }

        public var isClosed: Bool {
            if case .closed = phase { true } else { false }
        }

        /// Whether an event stream is open on this connection.
        public var isStreamingEvents: Bool {
            if case .streamingEvents = phase { true } else { false }
        }

        /// Whether input is waiting to be parsed at the next `advance` (the turn's parsing
        /// budget ran out, or an answer was just taken and a pipelined request waits).
        public var hasInputToParse: Bool {
            guard case .awaitingRequest = phase, inputStart < input.count else { return false }
            return outputStart == outputBytes.count || parser.isInsideRequest
        }

        /// The actions since the last call, in order.
        public mutating func takeActions() -> [Action] {
            defer { actions.removeAll() }
            return actions
        }

        // MARK: What the socket did

        /// Bytes read from the socket (at most `readCapacity`). They are parsed at the next
        /// `advance`, within the turn's budget.
        public mutating func receive(_ bytes: some Collection<UInt8>, at now: MonotonicInstant) {
            lastNow = now
            guard !bytes.isEmpty else { return }
            switch phase {
            case .awaitingRequest, .handlingRequest:
                if requestStartedAt == nil { requestStartedAt = now }
                input += bytes
            case .streamingEvents, .lingering, .finishingOutput, .closed:
                break
            }
        }

        /// The socket's read side ended (a read of 0 bytes, or an error).
        public mutating func peerClosed(at now: MonotonicInstant) {
            lastNow = now
            peerHasClosed = true
            switch phase {
            case .awaitingRequest:
                // Whole requests already read are still answered; with none, there is no one
                // to answer.
                if !hasInputToParse && outputStart == outputBytes.count { close(.peerClosed) }
            case .handlingRequest, .finishingOutput:
                break  // the answer is still sent: a client may shut its write side and read
            case .streamingEvents, .lingering:
                close(.peerClosed)
            case .closed:
                break
            }
        }

        /// The owner wrote `count` bytes of `output` to the socket.
        public mutating func sent(_ count: Int, at now: MonotonicInstant) {
            lastNow = now
            let taken = min(max(0, count), outputBytes.count - outputStart)
            guard taken > 0 else { return }
            outputStart += taken
            outputProgressAt = now
            if outputStart == outputBytes.count {
                outputBytes.removeAll(keepingCapacity: outputBytes.capacity <= 64 * 1024)
                outputStart = 0
                outputDrained(at: now)
            } else if outputStart > 64 * 1024 && outputStart * 2 > outputBytes.count {
                outputBytes.removeFirst(outputStart)
                outputStart = 0
            }
        }

        private mutating func outputDrained(at now: MonotonicInstant) {
            switch phase {
            case .finishingOutput:
                outputDrainedWhileFinishing(at: now)
            case .awaitingRequest:
                idleSince = now
                if peerHasClosed && !hasInputToParse { close(.peerClosed) }
            case .handlingRequest, .streamingEvents, .lingering, .closed:
                break
            }
        }

        // MARK: Shared steps

        /// Queues output, or closes the connection if the client has left too much unread.
        /// Returns whether it was queued.
        @discardableResult
        mutating func enqueue(_ bytes: [UInt8], at now: MonotonicInstant) -> Bool {
            let waiting = outputBytes.count - outputStart
            if waiting > 0 && waiting + bytes.count > configuration.maximumQueuedOutput {
                close(.notReading)
                return false
            }
            if waiting == 0 { outputProgressAt = now }
            outputBytes += bytes
            return true
        }

        mutating func close(_ reason: CloseReason) {
            if case .closed = phase { return }
            phase = .closed
            input = []
            inputStart = 0
            outputBytes = []
            outputStart = 0
            parser = RequestParser(limits: configuration.limits)
            actions.append(.close(reason))
        }
    }
}
