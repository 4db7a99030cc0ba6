import Foundation
import Testing

/// A temporary `--state-dir` (and config) removed when the test ends.
final class StateDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("vigil-interop-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes the TOML-subset config for one heart-rate device and returns its path.
    func writeConfig(name: String, address: String?, pair: Bool) throws -> URL {
        var text = "[[device]]\ntype = \"heart-rate\"\nname = \"\(name)\"\npair = \(pair)\n"
        if let address { text += "address = \"\(address)\"\n" }
        return try writeConfig(text)
    }

    /// Writes any config text (one `[[device]]` of another transmitter type, say) and returns
    /// its path; a later call replaces the file, so a second run can change an option.
    func writeConfig(_ text: String) throws -> URL {
        let file = url.appendingPathComponent("vigil.toml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }
}

/// One finished `vigil run` against a rig, with its events and the rig's log during the run.
struct VigilRun {
    let address: String
    let result: ChildProcessResult
    let events: [JSONObject]
    /// Rig lines printed while this run was going (from `rigStart`).
    let rigRecords: [JSONObject]
    let rigStart: Int
    let rigStderr: String

    init(rig: Rig, state: StateDirectory, pair: Bool, seconds: Int, until stop: ((VigilRun) -> Bool)? = nil) throws {
        let info = try rig.info()
        let config = try state.writeConfig(name: try #require(info.string("name")), address: nil, pair: pair)
        try self.init(rig: rig, state: state, configFile: config, seconds: seconds, until: stop)
    }

    /// A run with a config written by the test (`StateDirectory.writeConfig(_:)`), for the
    /// transmitter types other than heart rate. `waitForClientClose` reads the rig's log only
    /// once the rig saw vigil's HCI connection close (and the link it dropped then end): a
    /// transmitter that vigil met in several sessions has logged earlier disconnections, which
    /// would otherwise end the wait before the last session's lines are in.
    ///
    /// `until`: the run is stopped (SIGTERM, to which vigil answers with a clean exit 0) as
    /// soon as this holds for the run so far (its events, log and the rig's lines, read with
    /// the same accessors as the finished run); `seconds` stays the cap. A test that proves
    /// something about a span of time (nothing happens within N s) leaves it out.
    init(rig: Rig, state: StateDirectory, configFile config: URL, seconds: Int,
         waitForClientClose: Bool = false, until stop: ((VigilRun) -> Bool)? = nil) throws {
        let info = try rig.info()
        let address = try #require(info.string("address"))
        let rigStart = rig.lineCount
        let eventStream = NDJSONStream()
        let rigLines = RigRecordStream(rig, since: rigStart)
        self.address = address
        self.rigStart = rigStart
        // A cap (the run ends on its events) stretches under emulation; a span does not.
        let seconds = stop == nil ? seconds : seconds * InteropEnvironment.capScale
        result = try VigilProcess().run(
            ["run"] + VigilProcess.hci(rig)
                + ["--config", config.path, "--state-dir", state.url.path, "--events-json", "--seconds", "\(seconds)"],
            timeout: .seconds(seconds + 30),
            stopWhen: stop.map { stop in
                { soFar in
                    stop(VigilRun(address: address, result: soFar, events: eventStream.update(soFar.stdout),
                                  rigRecords: rigLines.update(), rigStart: rigStart, rigStderr: ""))
                }
            })
        // Let the rig print what it sent up to the disconnection before reading its log.
        if waitForClientClose {
            _ = try rig.waitFor(since: rigStart, timeout: .seconds(3)) { $0.string("event") == "hci-client-closed" }
            let log = try rig.records(since: rigStart)
            if let closed = log.lastIndex(where: { $0.string("event") == "hci-client-closed" }) {
                // A link still up then is dropped by the rig; its end follows within moments
                // (and when none was up, this costs one second).
                _ = try rig.waitFor(since: rigStart + closed, timeout: .seconds(1)) { $0.string("event") == "disconnected" }
            }
        } else {
            _ = try rig.waitFor(since: rigStart, timeout: .seconds(2)) {
                $0.string("event") == "disconnected" || $0.string("event") == "link-dropped-by-rig"
            }
        }
        rigRecords = try rig.records(since: rigStart)
        rigStderr = rig.stderrText
        events = (try? NDJSON.parse(result.stdoutText)) ?? []
    }

    /// A run so far, for an `until` condition.
    private init(address: String, result: ChildProcessResult, events: [JSONObject], rigRecords: [JSONObject],
                 rigStart: Int, rigStderr: String) {
        self.address = address
        self.result = result
        self.events = events
        self.rigRecords = rigRecords
        self.rigStart = rigStart
        self.rigStderr = rigStderr
    }

    func events(named name: String) -> [JSONObject] { events.filter { $0.string("event") == name } }

    func expectCleanExit(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(!result.timedOut && result.exitCode == 0, "\(diagnostics)", sourceLocation: sourceLocation)
        // stdout is the contract: every line must be an event object.
        _ = try result.ndjson()
    }

    var diagnostics: String {
        "vigil \(result.summary)\nvigil stdout:\n\(result.stdoutText.suffix(3_000))\nrig stderr tail:\n\(rigStderr.suffix(1_000))"
    }
}

/// The rig's lines since `start`, each parsed once (as `NDJSONStream` does for vigil's output).
final class RigRecordStream {
    let rig: Rig
    let start: Int
    private(set) var records: [JSONObject] = []

    init(_ rig: Rig, since start: Int) {
        self.rig = rig
        self.start = start
    }

    func update() -> [JSONObject] {
        records += (try? rig.records(since: start + records.count)) ?? []
        return records
    }
}

/// One glucose value from a `reading` event.
struct GlucoseValue: Equatable, CustomStringConvertible {
    var address: String?
    /// `glucose` or `meter-glucose`: the event's kind.
    var kind: String?
    var mgdl: Double
    var trend: String?
    /// The reading's wall-clock time as printed (ISO 8601), nil if absent.
    var time: String?
    /// How many `connected` events came before it: which session it belongs to.
    var session: Int
    /// The transmitter's own name for the reading (`sensorTime` in the event), if it has one.
    var sensorTime: Int? = nil
    var description: String { "\(mgdl) mg/dL \(trend ?? "-") at \(time ?? "?") (session \(session))" }

    /// `time` in seconds since 1970, for differences between readings.
    var seconds: Double? {
        guard let time else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: time) { return date.timeIntervalSince1970 }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: time)?.timeIntervalSince1970
    }
}

extension VigilRun {
    /// An `until` condition: `count` readings of `kind` (`heart-rate`, `glucose`, ...) arrived.
    static func readings(_ kind: String, atLeast count: Int) -> (VigilRun) -> Bool {
        { run in run.events(named: "reading").filter { $0.string("kind") == kind }.count >= count }
    }

    /// Every glucose value in the `reading` events, in order, with its session.
    func glucoseValues() -> [GlucoseValue] {
        var session = 0
        var values: [GlucoseValue] = []
        for event in events {
            if event.string("event") == "connected" { session += 1 }
            guard event.string("event") == "reading", let mgdl = event.double("mgdl") else { continue }
            values.append(GlucoseValue(address: event.string("address"), kind: event.string("kind"), mgdl: mgdl,
                                       trend: event.string("trend"), time: event.string("time"), session: session,
                                       sensorTime: event.int("sensorTime")))
        }
        return values
    }

    /// `reading` lines that repeat a key (several readings flattened into one object): JSON
    /// consumers keep one value per key, so all but one of those readings would be lost.
    func readingLinesWithRepeatedKeys() -> [String] {
        result.stdoutText.split(separator: "\n").map(String.init).filter { line in
            line.contains(#""event":"reading""#) && line.components(separatedBy: #""mgdl":"#).count > 2
        }
    }
}
