import App
import Clocks
import Readings
import Transmitters
import Web

// Targets for the text the appliance reads: its configuration file and the serial export line.

extension FuzzTarget {
    /// The configuration file (`/etc/vigil/vigil.toml`; the TOML 1.0 subset TOMLParser
    /// documents) parsed as `vigil run` and `vigil config check` parse it, plus the board
    /// profile, which is TOML too. Parsed once and read as both: their `init(parsing:)` is
    /// exactly this parse and then their `init(reading:)`, and the parse was three quarters
    /// of the time when each parsed the text again (perf).
    static let config = FuzzTarget(name: "config", summary: "TOML.parseForConfiguration, VigilConfiguration(reading:knownDeviceTypes:), BoardProfile(reading:)") { buffer in
        guard let root = try? TOML.parseForConfiguration(Array(buffer).lossyText) else { return }
        _ = try? VigilConfiguration(reading: root, knownDeviceTypes: knownDeviceTypes)
        _ = try? BoardProfile(reading: root)
    }

    /// JSON as the followers read a server's answer (`JSON.parse`, RFC 8259), then the
    /// decoders of the three services' documents on what parsed (docs/followers.md).
    ///
    /// Oracle: a text that parses renders to a text that parses to the same value.
    static let json = FuzzTarget(name: "json", summary: "JSON.parse, its rendering parsed again, the follower services' document decoders") { buffer in
        guard let value = try? JSON.parse(Array(buffer)) else { return }
        let again = try? JSON.parse(value.rendered)
        fuzzCheck(again == value, "rendered JSON does not parse to the same value")
        FollowerDocumentsFuzz.decode(Array(buffer))
    }

    /// Streamed answers (exports, reports) the serial session gives per input: two, so that one
    /// can follow another in the same session.
    static let serialBodiesPerInput = 2

    static let knownDeviceTypes = TransmitterCatalog.builtIn.names

    /// The serial export protocol (SerialExportSession's doc comment): command lines as the
    /// appliance parses them, the session answering them from a small history, and the
    /// client's response parser reading both the raw input and the session's answers.
    ///
    /// Oracle: a session's answers end (a bounded number of `nextOutput` calls per command).
    ///
    /// Speed: a report or an export costs about half a millisecond under the sanitizers, and a
    /// 4 KiB input can hold hundreds of `REPORT` lines; answered all, a grown corpus ran at 90
    /// inputs a second. The session is fed until it has answered `serialBodiesPerInput` of them (any
    /// number of short answers); every line still goes through the command parser, and all the
    /// bytes through the response parser.
    static let serialCommand = FuzzTarget(name: "serial-command", summary: "SerialCommand(parsing:), SerialExportSession over a small history, SerialResponseParser") { buffer in
        let bytes = Array(buffer)
        for line in bytes.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
            _ = try? SerialCommand(parsing: Array(line).lossyText, utcOffset: .seconds(3600))
        }
        var session = SerialExportSession(configuration: .init(maximumLineLength: 64, utcOffset: .seconds(3600), pageSize: 3))
        var source = FuzzHistory()
        var client = SerialResponseParser()
        var offset = 0
        var calls = 0
        var bodies = 0
        // The bytes arrive in tty-sized pieces; the answers are written as they are ready.
        while offset < bytes.count, bodies < serialBodiesPerInput {
            let end = min(bytes.count, offset + 1 + Int(bytes[offset] % 32))
            session.receive(Array(bytes[offset..<end]), wallNow: FuzzHistory.end)
            offset = end
            while session.hasOutput {
                calls += 1
                fuzzCheck(calls < 100_000, "serial export session never finishes answering")
                for event in client.receive(session.nextOutput(from: &source)) {
                    if case let .started(what) = event, what.hasPrefix("export") || what.hasPrefix("report") { bodies += 1 }
                }
                // A client reads one answer; the next one is read by the next request's parser.
                if client.isDone { client = SerialResponseParser() }
            }
        }
        var raw = SerialResponseParser()
        _ = raw.receive(bytes)
    }
}

/// Twelve readings, two devices, one every five minutes: enough for exports to page and for a
/// report to have something to chart.
struct FuzzHistory: SerialExportSource {
    static let start = WallClockTime(microsecondsSinceEpoch: 1_795_000_000_000_000)
    static let end = start + .seconds(3600)

    static let readings: [RecordedReading] = (0..<12).map { i in
        let time = start + .seconds(300 * Int64(i))
        return i % 3 == 2
            ? RecordedReading(device: DeviceID("strap"), value: .heartRate(BeatsPerMinute(UInt16(60 + i)), contact: .detected), wallTime: time)
            : RecordedReading(device: DeviceID("g6"), value: .glucose(GlucoseConcentration(milligramsPerDeciliter: Double(90 + 7 * i)), trend: .flat), wallTime: time)
    }

    mutating func page(matching filter: ExportFilter, after cursor: ReadingCursor?, limit: Int) throws -> ReadingPage {
        let first = cursor.map { Int($0.rawValue) + 1 } ?? 0
        var out: [RecordedReading] = []
        var index = first
        while index < Self.readings.count, out.count < limit {
            if filter.includes(Self.readings[index]) { out.append(Self.readings[index]) }
            index += 1
        }
        return ReadingPage(readings: out, next: index < Self.readings.count ? ReadingCursor(Int64(index - 1)) : nil)
    }

    mutating func statusLines() throws -> [String] { ["readings \(Self.readings.count)", ".dot-stuffed line"] }
}

/// Each follower service logged in with well-formed answers, then handed the fuzz input as
/// the answer to a fetch: the public path a server's document takes (docs/followers.md).
enum FollowerDocumentsFuzz {
    static let now = ClockReadings(monotonic: .zero + .seconds(1000), wall: WallClockTime(secondsSinceEpoch: 1_764_300_000))
    static let site = HTTP.URL(scheme: .https, host: "ns.example")

    /// The answers that log each service in, before the one under test.
    static let logins: [(FollowerSource, [String])] = [
        (.nightscout(site: site, token: nil, apiSecret: nil), []),
        (.dexcomShare(username: "u", password: "p", server: .unitedStates),
         ["\"a1b2c3d4-0000-4000-8000-00000000abcd\"", "\"b1b2c3d4-0000-4000-8000-00000000abcd\""]),
        (.libreLinkUp(email: "e", password: "p", server: site, patient: nil),
         [#"{"status":0,"data":{"user":{"id":"u1"},"authTicket":{"token":"t","expires":1764303600}}}"#,
          #"{"status":0,"data":[{"patientId":"p1","firstName":"A","lastName":"B"}]}"#]),
    ]

    static func decode(_ bytes: [UInt8]) {
        for (source, answers) in logins {
            var follower = Follower(device: "f", source: source)
            _ = follower.start(at: now)
            for answer in answers { _ = follower.exchangeEnded(.success(HTTP.ClientResponse(status: 200, body: Array(answer.utf8))), at: now) }
            for output in follower.exchangeEnded(.success(HTTP.ClientResponse(status: 200, body: bytes)), at: now) {
                guard case let .readings(readings) = output else { continue }
                var last: WallClockTime?
                for reading in readings {
                    guard case let .wallClock(time) = reading.time else { return fuzzCheck(false, "a followed reading not on the wall clock") }
                    fuzzCheck(time <= now.wall, "a followed reading from the future: \(time)")
                    fuzzCheck(last.map { $0 < time } ?? true, "followed readings not in order")
                    last = time
                }
            }
        }
    }
}
