import App
import Clocks
import Readings
import Transmitters

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
