import Clocks

extension HTTP.Connection {
    /// One turn of the loop for this connection: due deadlines first, then at most
    /// `bytesParsedPerTurn` bytes of input parsed, which may hand out a request.
    public mutating func advance(at now: MonotonicInstant) {
        lastNow = now
        handleDeadlines(at: now)
        var budget = configuration.bytesParsedPerTurn
        while budget > 0, hasInputToParse {
            let end = min(input.count, inputStart + budget)
            let (consumed, event) = parser.parse(input[inputStart..<end])
            inputStart += consumed
            budget -= consumed
            compactInput()
            guard let event else {
                if consumed == 0 { break }
                continue
            }
            switch event {
            case let .request(request):
                requestCount += 1
                requestStartedAt = nil
                let persistence: HTTP.ResponseSerializer.Persistence =
                    !request.wantsPersistentConnection || requestCount >= configuration.maximumRequests ? .closing
                    : request.version == .http10 ? .persistentForHTTP10 : .persistent
                phase = .handlingRequest(request.method, persistence)
                actions.append(.handle(request))
                return
            case .continueExpected:
                enqueue(HTTP.ResponseSerializer.continueResponse, at: now)
            case let .rejected(rejection):
                refuse(rejection, at: now)
                return
            }
        }
        if peerHasClosed, case .awaitingRequest = phase, !hasInputToParse, outputStart == outputBytes.count {
            // What is left can never become a request: nothing more will arrive.
            close(.peerClosed)
        }
    }

    private mutating func compactInput() {
        if inputStart == input.count {
            input.removeAll(keepingCapacity: true)
            inputStart = 0
        } else if inputStart >= 4096 && inputStart * 2 >= input.count {
            input.removeFirst(inputStart)
            inputStart = 0
        }
    }

    /// When `advance` must next be called: a timer, or the time of the last call when input
    /// is waiting to be parsed (the owner then polls without waiting). Nil once closed.
    public var nextDeadline: MonotonicInstant? {
        if hasInputToParse { return lastNow }
        var deadlines: [MonotonicInstant?] = []
        if outputStart < outputBytes.count { deadlines.append(outputProgressAt + configuration.sendTimeout) }
        switch phase {
        case .awaitingRequest:
            if let requestStartedAt {
                deadlines.append(requestStartedAt + configuration.requestTimeout)
            } else if outputStart == outputBytes.count {
                deadlines.append(idleSince + configuration.idleTimeout)
            }
        case .streamingEvents:
            if let keepAlive = configuration.eventStreamKeepAlive, let eventStreamSentAt { deadlines.append(eventStreamSentAt + keepAlive) }
        case let .lingering(until):
            deadlines.append(until)
        case .handlingRequest, .finishingOutput, .closed:
            break
        }
        return earliest(deadlines)
    }

    mutating func handleDeadlines(at now: MonotonicInstant) {
        if outputStart < outputBytes.count, now >= outputProgressAt + configuration.sendTimeout {
            close(.notReading)
            return
        }
        switch phase {
        case .awaitingRequest:
            if let requestStartedAt {
                guard now >= requestStartedAt + configuration.requestTimeout else { return }
                if parser.isInsideRequest || inputStart < input.count {
                    refuse(HTTP.Rejection(.requestTimeout, "the request did not arrive within \(Self.seconds(configuration.requestTimeout))"), at: now)
                } else {
                    close(.idle)  // only empty lines came
                }
            } else if outputStart == outputBytes.count, now >= idleSince + configuration.idleTimeout {
                close(.idle)
            }
        case .streamingEvents:
            if let keepAlive = configuration.eventStreamKeepAlive, let sentAt = eventStreamSentAt, now >= sentAt + keepAlive {
                appendToEventStream(HTTP.ServerSentEvent.comment(" keep-alive").bytes, at: now)
            }
        case let .lingering(until):
            if now >= until { close(.finished) }
        case .handlingRequest, .finishingOutput, .closed:
            break
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return attoseconds == 0 ? "\(seconds) s" : "\(Double(seconds) + Double(attoseconds) / 1e18) s"
    }
}
