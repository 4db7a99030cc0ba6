import Clocks
import Web

// The HTTP server side: the request parser on its own, one connection, and a server of
// several, each driven by a script read from the input (docs/http.md).

extension FuzzTarget {
    /// The first octet picks the part: the parser (fed the rest in pieces the input sizes,
    /// and whole, which must agree), one `HTTP.Connection` or an `HTTP.Server` driven by a
    /// script of socket events, answers, event-stream calls and deadlines. Limits are small
    /// and input-chosen, so a 4 KiB input reaches each of them.
    ///
    /// Oracles: never more held than the bounds (parser, input, output); every rejection a
    /// 4xx or 5xx with a reason; a request within its limits; a handled deadline not due
    /// again; a closed connection holds nothing; the server never serves more than its cap.
    static let http = FuzzTarget(name: "http", summary: "HTTP.RequestParser in pieces and whole, HTTP.Connection and HTTP.Server driven by a script") { buffer in
        var input = FuzzInput(buffer)
        switch input.byte() % 3 {
        case 0: HTTPFuzz.parser(&input)
        case 1: HTTPFuzz.connection(&input)
        default: HTTPFuzz.server(&input)
        }
    }
}

enum HTTPFuzz {
    static func limits(_ input: inout FuzzInput) -> HTTP.Limits {
        HTTP.Limits(requestLineBytes: 16 + Int(input.byte()), headerFieldCount: Int(input.byte() % 12),
                    headerSectionBytes: 8 + Int(input.byte()) * 2, bodyBytes: Int(input.byte()))
    }

    static func check(_ event: HTTP.RequestParser.Event, _ limits: HTTP.Limits) {
        switch event {
        case let .request(request):
            fuzzCheck(request.body.count <= limits.bodyBytes, "content past its limit")
            fuzzCheck(request.headers.count <= limits.headerFieldCount, "more fields than the limit")
            fuzzCheck(request.path.hasPrefix("/"), "path not starting with /: \(request.path)")
        case let .rejected(rejection):
            checkRejection(rejection)
        case .continueExpected:
            break
        }
    }

    static func checkRejection(_ rejection: HTTP.Rejection) {
        fuzzCheck(rejection.status.isError, "rejection with status \(rejection.status)")
        fuzzCheck(!rejection.reason.isEmpty, "rejection without a reason")
    }

    /// The rest of the input in pieces, then whole: the events must be the same.
    static func parser(_ input: inout FuzzInput) {
        let limits = limits(&input)
        let sizes = input.take(8).map { Int($0 % 64) + 1 }
        let bytes = input.rest()
        var parser = HTTP.RequestParser(limits: limits)
        var pieces: [HTTP.RequestParser.Event] = []
        var offset = 0
        var piece = 0
        while offset < bytes.count, parser.rejection == nil {
            let end = min(bytes.count, offset + (sizes.isEmpty ? bytes.count : sizes[piece % sizes.count]))
            piece += 1
            var rest = bytes[offset..<end]
            while !rest.isEmpty {
                let (consumed, event) = parser.parse(rest)
                fuzzCheck(consumed <= rest.count, "consumed more than it was given")
                fuzzCheck(parser.bufferedByteCount <= limits.bufferedBytes, "parser holds \(parser.bufferedByteCount) bytes")
                rest = rest.dropFirst(consumed)
                if let event {
                    check(event, limits)
                    pieces.append(event)
                }
                if consumed == 0 && event == nil {
                    fuzzCheck(parser.rejection != nil, "no progress without a rejection")
                    break
                }
            }
            offset = end
        }
        var whole = HTTP.RequestParser(limits: limits)
        var events: [HTTP.RequestParser.Event] = []
        var rest = bytes[...]
        while !rest.isEmpty {
            let (consumed, event) = whole.parse(rest)
            rest = rest.dropFirst(consumed)
            if let event { events.append(event) }
            if consumed == 0 && event == nil { break }
        }
        fuzzCheck(events == pieces, "pieces and whole disagree")
    }

    static func configuration(_ input: inout FuzzInput) -> HTTP.Connection.Configuration {
        HTTP.Connection.Configuration(
            limits: limits(&input), maximumRequests: 1 + Int(input.byte() % 8), maximumQueuedOutput: 256 + Int(input.byte()) * 4,
            maximumBufferedInput: 32 + Int(input.byte()), bytesParsedPerTurn: 1 + Int(input.byte()))
    }

    /// The largest single answer the scripts make: past the output bound only when alone.
    static let largestAnswer = 2048

    static func response(_ selector: UInt8, _ input: inout FuzzInput) -> HTTP.Response {
        let body = input.chunk()
        let statuses: [HTTP.Status] = [.ok, .noContent, .notModified, .notFound, .continue, HTTP.Status(code: 299, reasonPhrase: "X\r\nY")]
        var response = HTTP.Response(status: statuses[Int(selector) % statuses.count], body: body)
        if selector & 0x10 != 0 { response.headers.append("Connection", "close") }
        if selector & 0x20 != 0 { response.headers.append(String(decoding: input.take(4), as: UTF8.self), String(decoding: input.take(8), as: UTF8.self)) }
        return response
    }

    static func event(_ input: inout FuzzInput) -> HTTP.ServerSentEvent {
        let selector = input.byte()
        if selector & 1 != 0 { return .comment(String(decoding: input.take(8), as: UTF8.self)) }
        return HTTP.ServerSentEvent(event: selector & 2 != 0 ? String(decoding: input.take(6), as: UTF8.self) : nil,
                                    data: String(decoding: input.chunk(), as: UTF8.self),
                                    id: selector & 4 != 0 ? String(decoding: input.take(4), as: UTF8.self) : nil)
    }

    static func checkConnection(_ connection: HTTP.Connection, _ configuration: HTTP.Connection.Configuration) {
        fuzzCheck(connection.bufferedInputCount <= configuration.maximumBufferedInput, "input past its bound")
        fuzzCheck(connection.output.count <= max(configuration.maximumQueuedOutput, largestAnswer), "output past its bound: \(connection.output.count)")
        if connection.isClosed {
            fuzzCheck(connection.output.isEmpty && connection.readCapacity == 0 && connection.nextDeadline == nil, "a closed connection holds something")
        }
    }

    /// One operation of a script on connection `connection`; `now` moves forward.
    static func step(_ connection: inout HTTP.Connection, _ input: inout FuzzInput, _ now: inout MonotonicInstant, _ configuration: HTTP.Connection.Configuration) {
        let operation = input.byte()
        switch operation % 10 {
        case 0, 1, 2:
            connection.receive(input.chunk().prefix(connection.readCapacity), at: now)
        case 3:
            connection.sent(Int(input.byte()) * 4, at: now)
        case 4:
            connection.respond(response(input.byte(), &input), date: operation & 0x80 != 0 ? "Sun, 06 Nov 1994 08:49:37 GMT" : nil, at: now)
        case 5:
            connection.startEventStream(at: now)
        case 6:
            connection.send(event(&input), at: now)
        case 7:
            if operation & 0x80 != 0 { connection.endEventStream(at: now) } else { connection.peerClosed(at: now) }
        case 8:
            connection.refuse(HTTP.Rejection(.forbidden, "fuzz"), at: now)
        default:
            // A deadline, handled: it must not be due again.
            if let deadline = connection.nextDeadline {
                now = max(now, deadline)
                connection.advance(at: now)
                if !connection.hasInputToParse, let next = connection.nextDeadline {
                    fuzzCheck(next > now, "a handled deadline is still due")
                }
            } else {
                now += .milliseconds(Int64(input.byte()) * 100)
            }
        }
        connection.advance(at: now)
        checkConnection(connection, configuration)
    }

    static func connection(_ input: inout FuzzInput) {
        let configuration = configuration(&input)
        var now = MonotonicInstant.zero + .seconds(1)
        var connection = HTTP.Connection(configuration: configuration, at: now)
        var steps = 0
        while !input.isAtEnd && steps < 2000 {
            step(&connection, &input, &now, configuration)
            _ = connection.takeActions()
            steps += 1
        }
    }

    static func server(_ input: inout FuzzInput) {
        let connectionConfiguration = configuration(&input)
        let configuration = HTTP.Server.Configuration(connection: connectionConfiguration, maximumConnections: 1 + Int(input.byte() % 6),
                                                      maximumRefusing: Int(input.byte() % 3))
        var server = HTTP.Server(configuration: configuration)
        var now = MonotonicInstant.zero + .seconds(1)
        var ids: [HTTP.Server.ConnectionID] = []
        var steps = 0
        while !input.isAtEnd && steps < 2000 {
            steps += 1
            let operation = input.byte()
            let id = ids.isEmpty ? nil : ids[Int(input.byte()) % ids.count]
            switch (operation % 8, id) {
            case (0, _), (_, nil):
                ids.append(server.open(at: now))
            case let (1, id?), let (2, id?):
                server.receive(input.chunk().prefix(server.readCapacity(of: id)), from: id, at: now)
            case let (3, id?):
                server.sent(Int(input.byte()) * 4, to: id, at: now)
            case let (4, id?):
                server.respond(to: id, with: response(input.byte(), &input), at: now)
            case let (5, id?):
                if operation & 0x80 != 0 { server.startEventStream(on: id, at: now) } else { server.sendToEventStreams(event(&input), at: now) }
            case let (6, id?):
                server.peerClosed(id, at: now)
            default:
                if let deadline = server.nextDeadline { now = max(now, deadline) }
            }
            server.advance(at: now)
            for action in server.takeActions() {
                if case let .close(closed, _) = action {
                    fuzzCheck(server.output(of: closed).isEmpty && server.readCapacity(of: closed) == 0, "a closed connection is still served")
                }
            }
            fuzzCheck(server.servedCount <= configuration.maximumConnections, "more served than the cap")
            fuzzCheck(server.connectionCount <= configuration.maximumConnections + configuration.maximumRefusing, "more refusals than allowed")
            if let id {
                fuzzCheck(server.output(of: id).count <= max(connectionConfiguration.maximumQueuedOutput, largestAnswer), "output past its bound")
            }
        }
    }
}
