import App
import Clocks
import Readings
import Simulator
import Transmitters
import Testing
import Web

/// The page's sockets as the web listener holds them: bytes in through the supervisor, and
/// every byte it writes back read at once, as a client that keeps reading would.
struct WebSockets {
    var shutDown: Set<Supervisor.WebConnection> = []
    var closed: Set<Supervisor.WebConnection> = []
    /// What each client has read so far.
    var read: [Supervisor.WebConnection: [UInt8]] = [:]
    /// Clients that have stopped reading: their output stays in the server.
    var notReading: Set<Supervisor.WebConnection> = []
    /// Reports asked for, to be answered by the test with `webReportEnded`.
    var reportRequests: [WebReportRequest] = []
    /// Glucose an earlier run left in the history, handed over when it opens.
    var storedGlucose: [RecordedReading] = []
}

/// One response as a client reads it.
struct WebResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: String

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The first response in `bytes`, and what follows it; nil while it is incomplete. The
    /// answer to a HEAD has a length and no content.
    static func parse(_ bytes: [UInt8], toHead: Bool = false) -> (WebResponse, rest: [UInt8])? {
        let text = Array(bytes)
        guard let end = (0..<max(0, text.count - 3)).first(where: { text[$0..<$0 + 4] == [13, 10, 13, 10] }) else { return nil }
        let head = String(decoding: text[..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        guard let statusLine = head.first, let code = Int(statusLine.split(separator: " ")[1]) else { return nil }
        var headers: [(String, String)] = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingPrefix(" ").description))
        }
        var response = WebResponse(status: code, headers: headers, body: "")
        let start = end + 4
        if toHead { return (response, Array(text[start...])) }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            guard text.count >= start + length else { return nil }
            response.body = String(decoding: text[start..<start + length], as: UTF8.self)
            return (response, Array(text[(start + length)...]))
        }
        // An event stream: everything so far.
        response.body = String(decoding: text[start...], as: UTF8.self)
        return (response, [])
    }
}

extension SupervisorWorld {
    /// A socket the listener accepted.
    mutating func webConnect() -> Supervisor.WebConnection {
        let id = supervisor.webConnectionOpened(at: clocks)
        perform()
        return id
    }

    /// `bytes` arrive on `id`; the turn ends, and the client reads what it can.
    mutating func webSend(_ bytes: [UInt8], on id: Supervisor.WebConnection) {
        var rest = bytes[...]
        for _ in 0..<1000 where !rest.isEmpty {
            let capacity = supervisor.webReadCapacity(of: id)
            guard capacity > 0 else { break }
            let chunk = rest.prefix(capacity)
            rest = rest.dropFirst(chunk.count)
            supervisor.webReceived(chunk, from: id, at: clocks)
            perform()
            webTurn()
        }
        webTurn()
    }

    /// The turn ends and each client that reads takes what was written, until nothing moves.
    mutating func webTurn() {
        for _ in 0..<100 {
            pump()
            if !webClientsRead() { return }
        }
    }

    /// Each client that reads takes what was written to it; whether any took something.
    mutating func webClientsRead() -> Bool {
        var moved = false
        for id in Set(web.read.keys).union(web.shutDown).subtracting(web.closed).subtracting(web.notReading) {
            let output = supervisor.webOutput(of: id)
            guard !output.isEmpty else { continue }
            moved = true
            web.read[id, default: []] += output
            supervisor.webSent(output.count, to: id, at: clocks)
            perform()
        }
        return moved
    }

    /// A request on a new connection, and the answer the client read.
    mutating func webRequest(_ raw: String) -> WebResponse? {
        let id = webConnect()
        web.read[id] = []
        webSend(Array(raw.utf8), on: id)
        return WebResponse.parse(web.read[id] ?? [], toHead: raw.hasPrefix("HEAD ")).map(\.0)
    }

    /// A GET, with header lines.
    mutating func webGet(_ target: String, _ headers: [String] = []) -> WebResponse? {
        webRequest("GET \(target) HTTP/1.1\r\nHost: vigil.local:8080\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
    }

    /// A POST of a form, with header lines.
    mutating func webPost(_ target: String, form: String, _ headers: [String] = []) -> WebResponse? {
        webRequest("POST \(target) HTTP/1.1\r\nHost: vigil.local:8080\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                   + "Content-Length: \(form.utf8.count)\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n" + form)
    }
}

/// A CGM for the supervisor's world: the simulated BTHome thermometer's advertisements (one
/// measurement every 3 s), each read as a sensor glucose whose value the script gives at that
/// moment, so a test can walk glucose into an urgent low on the virtual clock.
struct ScriptedCGM: BroadcastDecoder {
    static let recognition = BTHomeDecoder.recognition
    var inner: BTHomeDecoder
    let script: GlucoseScript

    init(device: DeviceID, script: GlucoseScript) {
        inner = BTHomeDecoder(device: device)
        self.script = script
    }

    var device: DeviceID { inner.device }
    var nextDeadline: MonotonicInstant? { inner.nextDeadline }
    mutating func start(at now: MonotonicInstant) { inner.start(at: now) }
    mutating func handleDeadline(at now: MonotonicInstant) -> [TransmitterEvent] { inner.handleDeadline(at: now) }

    mutating func decode(_ advertisement: AdvertisementSummary, at now: MonotonicInstant) -> [TransmitterEvent] {
        inner.decode(advertisement, at: now).compactMap { event in
            guard case let .reading(reading) = event else { return event }
            guard case .temperature = reading.value else { return nil }
            let value = script.milligramsPerDeciliter(at: now - .zero)
            return .reading(Reading(device: device, value: .glucose(GlucoseConcentration(milligramsPerDeciliter: value), trend: .flat),
                                    time: reading.time))
        }
    }
}

extension SupervisorWorld {
    /// An event stream opened with the token; its ID, to read on.
    mutating func webOpenStream(reading: Bool = true) -> Supervisor.WebConnection {
        let id = webConnect()
        web.read[id] = []
        if !reading { web.notReading.insert(id) }
        webSend(Array("GET /events HTTP/1.1\r\nHost: vigil.local:8080\r\nCookie: vigil_token=\(SupervisorWebTests.token)\r\n\r\n".utf8), on: id)
        return id
    }

    /// The `state` events a stream's client has read, each one's data.
    func webStateEvents(on id: Supervisor.WebConnection) -> [String] {
        let text = String(decoding: web.read[id] ?? [], as: UTF8.self)
        return text.split(separator: "\n\n").filter { $0.contains("event: state") }.compactMap { block in
            block.split(separator: "\n").first { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) }
        }
    }
}
