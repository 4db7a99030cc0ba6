import Clocks

extension HTTP.Connection {
    /// The application's answer to the request it was handed. `date`: the `Date` field's
    /// value, or nil (ResponseSerializer). Ignored unless a request is waiting for its answer.
    public mutating func respond(_ response: HTTP.Response, date: String? = nil, at now: MonotonicInstant) {
        lastNow = now
        guard case let .handlingRequest(method, requested) = phase else { return }
        // A 1xx is never a final answer (RFC 9110 §15.2): the client would wait on for one.
        if response.status.isInformational {
            refuse(HTTP.Rejection(.internalServerError, "the application answered with an interim status"), date: date, at: now)
            return
        }
        // The application may close too (RFC 9112 §9.6: a `close` it sends ends the connection).
        let persistence = response.headers.listContains("Connection", token: "close") ? .closing : requested
        let bytes = HTTP.ResponseSerializer.bytes(of: response, answering: method, persistence: persistence, date: date)
        guard enqueue(bytes, at: now) else { return }
        if persistence == .closing {
            phase = .finishingOutput
        } else {
            phase = .awaitingRequest
            idleSince = now
            // Bytes of a pipelined request are already here: its time starts now, when it can
            // first be read, not while the one before was being answered.
            requestStartedAt = inputStart < input.count ? now : nil
        }
    }

    /// Answers with a refusal and closes: for the parser's rejections, the server's 503, or
    /// the application ending an exchange it cannot serve. Works in any phase that has not
    /// begun an answer; an open event stream is simply ended.
    public mutating func refuse(_ rejection: HTTP.Rejection, date: String? = nil, at now: MonotonicInstant) {
        lastNow = now
        switch phase {
        case .awaitingRequest, .handlingRequest:
            let method: HTTP.Method = if case let .handlingRequest(method, _) = phase { method } else { .get }
            let bytes = HTTP.ResponseSerializer.bytes(of: rejection.response, answering: method, persistence: .closing, date: date)
            input = []
            inputStart = 0
            guard enqueue(bytes, at: now) else { return }
            phase = .finishingOutput
        case .streamingEvents:
            endEventStream(at: now)
        case .finishingOutput, .lingering, .closed:
            break
        }
    }

    // MARK: Event streams

    /// Answers the request with an open event stream (`text/event-stream`, 200) instead of a
    /// response; `send` appends events until `endEventStream`. The stream's content ends
    /// when the connection closes, so the connection is not reused. A HEAD request gets the
    /// head and the connection closes.
    public mutating func startEventStream(headers: HTTP.Headers = HTTP.Headers(), date: String? = nil, at now: MonotonicInstant) {
        lastNow = now
        guard case let .handlingRequest(method, _) = phase else { return }
        guard enqueue(HTTP.ResponseSerializer.eventStreamHead(headers: headers, date: date), at: now) else { return }
        input = []
        inputStart = 0
        if method == .head {
            phase = .finishingOutput
        } else {
            phase = .streamingEvents
            eventStreamSentAt = now
        }
    }

    /// Appends an event to the open stream; ignored without one. Counted against the output
    /// bound: a browser that stops reading is closed, never buffered for.
    public mutating func send(_ event: HTTP.ServerSentEvent, at now: MonotonicInstant) {
        lastNow = now
        sendEncoded(event.bytes, at: now)
    }

    /// `send` with the event's bytes already made (one event to many streams).
    mutating func sendEncoded(_ bytes: [UInt8], at now: MonotonicInstant) {
        lastNow = now
        guard case .streamingEvents = phase else { return }
        appendToEventStream(bytes, at: now)
    }

    /// Ends the open stream: what is queued is sent, then the connection closes.
    public mutating func endEventStream(at now: MonotonicInstant) {
        lastNow = now
        guard case .streamingEvents = phase else { return }
        phase = .finishingOutput
        if outputStart == outputBytes.count { outputDrainedWhileFinishing(at: now) }
    }

    mutating func appendToEventStream(_ bytes: [UInt8], at now: MonotonicInstant) {
        if enqueue(bytes, at: now) { eventStreamSentAt = now }
    }

    /// The last answer is all sent: shut the write side and linger, or close if the client
    /// has already gone.
    mutating func outputDrainedWhileFinishing(at now: MonotonicInstant) {
        if peerHasClosed {
            close(.finished)
        } else {
            phase = .lingering(until: now + configuration.lingerTimeout)
            actions.append(.shutdownWrite)
        }
    }
}
