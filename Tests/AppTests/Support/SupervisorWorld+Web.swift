import App
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
}

/// One response as a client reads it.
struct WebResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: String

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The first response in `bytes`, and what follows it; nil while it is incomplete.
    static func parse(_ bytes: [UInt8]) -> (WebResponse, rest: [UInt8])? {
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
            var moved = false
            for id in Set(web.read.keys).union(web.shutDown).subtracting(web.closed).subtracting(web.notReading) {
                let output = supervisor.webOutput(of: id)
                guard !output.isEmpty else { continue }
                moved = true
                web.read[id, default: []] += output
                supervisor.webSent(output.count, to: id, at: clocks)
                perform()
            }
            if !moved { return }
        }
    }

    /// A request on a new connection, and the answer the client read.
    mutating func webRequest(_ raw: String) -> WebResponse? {
        let id = webConnect()
        web.read[id] = []
        webSend(Array(raw.utf8), on: id)
        return WebResponse.parse(web.read[id] ?? []).map(\.0)
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
