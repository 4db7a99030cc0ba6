import Clocks
import Web

// The HTTP client side: the response parser on its own, and the client's exchanges driven by
// a script of the runner's reports and the clock (docs/http-client.md).

extension FuzzTarget {
    /// The first octet picks the part: the response parser (limits input-chosen and small, the
    /// rest fed in pieces the input sizes and whole, which must agree), or an `HTTP.Client`
    /// whose exchanges get events, bytes and time from the input.
    ///
    /// Oracles: a response within its limits with a status from 100 to 599; pieces and whole
    /// agree; every exchange ends once, with one `.close`; no deadline is left in the past
    /// after `advance`; every exchange ends within the sum of the phases' time-outs.
    static let httpClient = FuzzTarget(name: "http-client", summary: "HTTP.ResponseParser in pieces and whole, HTTP.Client driven by a script") { buffer in
        var input = FuzzInput(buffer)
        if input.byte() % 2 == 0 { HTTPClientFuzz.parser(&input) } else { HTTPClientFuzz.client(&input) }
    }
}

enum HTTPClientFuzz {
    static func parser(_ input: inout FuzzInput) {
        let limits = HTTP.ResponseParser.Limits(headerBytes: 16 + Int(input.byte()) * 2, headerFields: Int(input.byte() % 12),
                                                bodyBytes: Int(input.byte()) * 4)
        let head = input.byte() % 8 == 0
        let sizes = input.take(8).map { Int($0 % 64) + 1 }
        let bytes = input.rest()
        var pieces = HTTP.ResponseParser(limits: limits, requestWasHead: head)
        var byPieces = HTTP.ResponseParser.Outcome.needsMore
        var offset = 0, piece = 0
        while offset < bytes.count, byPieces == .needsMore {
            let end = min(bytes.count, offset + (sizes.isEmpty ? bytes.count : sizes[piece % sizes.count]))
            byPieces = pieces.receive(bytes[offset..<end])
            offset = end
            piece += 1
        }
        if byPieces == .needsMore { byPieces = pieces.peerClosed() }
        var whole = HTTP.ResponseParser(limits: limits, requestWasHead: head)
        var wholeOutcome = whole.receive(bytes)
        if wholeOutcome == .needsMore { wholeOutcome = whole.peerClosed() }
        fuzzCheck(byPieces == wholeOutcome, "pieces gave \(byPieces), whole \(wholeOutcome)")
        if case let .complete(response) = wholeOutcome {
            fuzzCheck((100...599).contains(response.status), "status \(response.status)")
            fuzzCheck(response.body.count <= limits.bodyBytes, "a body past its limit")
            fuzzCheck(response.headers.count <= limits.headerFields, "more fields than the limit")
            if head { fuzzCheck(response.body.isEmpty, "a body in an answer to HEAD") }
        }
    }

    static func client(_ input: inout FuzzInput) {
        var configuration = HTTP.Client.Configuration()
        configuration.maximumBody = Int(input.byte()) * 16
        configuration.maximumHeader = 64 + Int(input.byte()) * 4
        var client = HTTP.Client(configuration: configuration)
        var now = MonotonicInstant.zero
        var started: [HTTP.ExchangeID: MonotonicInstant] = [:]
        var ended: Set<HTTP.ExchangeID> = []
        var closed: [HTTP.ExchangeID] = []
        let longest = HTTP.ClientPhase.allCases.map(\.timeOut).reduce(Duration.zero, +)
        while !input.isAtEnd {
            let ids = started.keys.sorted()
            let id = ids.isEmpty ? HTTP.ExchangeID(1) : ids[Int(input.byte()) % ids.count]
            switch input.byte() % 12 {
            case 0:
                let url = HTTP.URL(scheme: input.byte() % 2 == 0 ? .http : .https, host: "fuzz.example", target: "/")
                started[client.start(HTTP.ClientRequest(method: input.byte() % 4 == 0 ? .head : .get, url: url), at: now)] = now
            case 1: client.handle(.resolved(id), at: now)
            case 2: client.handle(.connected(id), at: now)
            case 3: client.handle(.secured(id), at: now)
            case 4: client.handle(.sent(id), at: now)
            case 5, 6, 7: client.handle(.received(id, input.chunk()), at: now)
            case 8: client.handle(.peerClosed(id), at: now)
            case 9: client.handle(.failed(id, .connectFailed("fuzz")), at: now)
            case 10:
                client.cancel(id)
                if started[id] != nil { ended.insert(id) }
            default:
                now = now + .milliseconds(Int64(input.byte()) * 500)
                client.advance(to: now)
                if let deadline = client.nextDeadline { fuzzCheck(deadline > now, "a deadline left in the past") }
            }
            for (finished, _) in client.takeFinished() {
                fuzzCheck(!ended.contains(finished), "\(finished) ended twice")
                ended.insert(finished)
            }
            for action in client.takeActions() {
                if case let .close(closing) = action {
                    fuzzCheck(!closed.contains(closing), "\(closing) closed twice")
                    closed.append(closing)
                }
            }
            for (exchange, start) in started where !ended.contains(exchange) {
                fuzzCheck(now - start <= longest, "\(exchange) outlived every time-out")
            }
        }
        fuzzCheck(Set(closed) == ended, "closes \(closed) for ended \(ended)")
    }
}
