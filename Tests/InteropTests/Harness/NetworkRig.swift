import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The network rigs (`Tests/Rigs/nightscout_server.py`, `Tests/Rigs/follow_server.py`): HTTPS
/// test servers on loopback with their own test CA, whose faults a test switches while `vigil
/// run` talks to them. See docs/network-test-servers.md and Tests/Rigs/README.md.
enum NetworkRig {
    /// The Nightscout site's host name in Vigil's configuration. `.invalid` never resolves
    /// (RFC 6761 §6.4): without `--connect-to` the name fails to resolve, with it the
    /// connection reaches the rig while TLS and `Host` still say this name.
    static let nightscoutHost = "ns.vigil.invalid"
    /// What the rig is started with; Vigil is given the same in `[nightscout] api-secret`.
    static let apiSecret = "interop-api-secret-0123"

    /// A Nightscout site. `tokens`: `NAME=ROLE,...` subjects (their access tokens are in the rig
    /// line's `tokens`); anyone else gets nothing (`--default-roles denied`).
    static func nightscout(tokens: [String] = []) throws -> Rig {
        try Rig.launch("nightscout_server.py", arguments: [
            "--api-secret", apiSecret, "--name", nightscoutHost, "--default-roles", "denied",
        ] + tokens.flatMap { ["--token", $0] })
    }

    /// Dexcom Share and LibreLinkUp on one port (their real host names in the certificate).
    static func follow(_ arguments: [String] = []) throws -> Rig {
        try Rig.launch("follow_server.py", arguments: arguments)
    }

    /// `--connect-to HOST:443:127.0.0.1:PORT` for each name: Vigil's connections to the real
    /// names go to the rig (docs/network.md).
    static func connectTo(_ rig: Rig, hosts: [String]) -> [String] {
        hosts.flatMap { ["--connect-to", "\($0):443:127.0.0.1:\(rig.port)"] }
    }

    /// `[network] ca-file` naming the rig's test root.
    static func networkSection(_ rig: Rig) throws -> String {
        let ca = try #require(try rig.info().string("ca"), "the rig line has no ca")
        return "[network]\nca-file = \"\(ca)\"\n"
    }

    /// Writes a configuration that holds secrets, readable by its owner only (`vigil run`
    /// refuses one other users can read, docs/network.md).
    static func writeSecretConfig(_ text: String, in state: StateDirectory) throws -> URL {
        let file = try state.writeConfig(text)
        #expect(chmod(file.path, 0o600) == 0)
        return file
    }
}

extension Rig {
    /// Sends a command (a JSON object) to a network rig and waits for its acknowledgement
    /// (`{"event":"control","id":...}`): when this returns, the fault or the data is in place.
    @discardableResult
    func command(_ fields: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONObject {
        let id = UUID().uuidString
        var object = fields
        object["id"] = id
        let start = lineCount
        try send(line: String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
        let acknowledgement = try waitFor(since: start, timeout: .seconds(10)) {
            $0.string("event") == "control" && $0.string("id") == id
        }
        return try #require(acknowledgement, "rig \(script) did not acknowledge \(fields)\n\(stderrText.suffix(2_000))",
                            sourceLocation: sourceLocation)
    }

    /// Switches the rig's fault (`normal`, `refuse`, `silent`, `status`, ...; Tests/Rigs/https_rig.py).
    func fault(_ mode: String, status: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var fields: [String: Any] = ["fault": mode]
        if let status { fields["status"] = status }
        try command(fields, sourceLocation: sourceLocation)
    }
}

/// One document the Nightscout rig stored from a POST (`{"accepted":"entries",...}`).
struct StoredEntry: CustomStringConvertible {
    /// Arrival order over every collection (1, 2, ...).
    var seq: Int
    /// Which accepted POST brought it.
    var request: Int
    /// True when it matched an entry already stored (same sysTime and type) and replaced it.
    var duplicate: Bool
    var type: String?
    var sgv: Double?
    var mbg: Double?
    /// Nightscout's identity for an entry: its `dateString`, else `date`, in UTC.
    var sysTime: String
    var document: JSONObject

    /// `sysTime` in seconds since 1970.
    var seconds: Double? { NetworkTime.seconds(sysTime) }
    var description: String { "#\(seq) \(type ?? "?") \(sgv ?? mbg ?? .nan) at \(sysTime)\(duplicate ? " (duplicate)" : "")" }

    /// The rig's `accepted` records of `collection` among `records`, in arrival order.
    static func all(in records: [JSONObject], collection: String = "entries") -> [StoredEntry] {
        records.filter { $0.string("accepted") == collection }.compactMap { record in
            guard let seq = record.int("seq"), let request = record.int("request"),
                  let document = record.object("document") else { return nil }
            return StoredEntry(seq: seq, request: request, duplicate: record.bool("duplicate") ?? false,
                               type: document.string("type"), sgv: document.double("sgv"), mbg: document.double("mbg"),
                               sysTime: document.string("sysTime") ?? document.string("created_at") ?? "", document: document)
        }
    }
}

enum NetworkTime {
    /// An ISO 8601 time (with or without fractional seconds) in seconds since 1970.
    static func seconds(_ text: String) -> Double? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)?.timeIntervalSince1970
    }
}

/// A `reading` event of `vigil run --events-json` with a glucose value.
struct ReportedGlucose: CustomStringConvertible, Equatable {
    var device: String?
    var mgdl: Double
    var seconds: Double
    var time: String
    /// The sensor's own name for the reading (`sensorRun`/`sensorTime` in the event), when it
    /// has one: a reading backfilled again after a restart is dated anew but named the same,
    /// and the history keeps it once (docs/reading-identity.md).
    var stamp: String?
    var description: String { "\(device ?? "?") \(mgdl) mg/dL at \(time)" }

    /// Every glucose reading among `events`, in the order Vigil reported them.
    static func all(in events: [JSONObject], device: String? = nil) -> [ReportedGlucose] {
        events.compactMap { event in
            guard event.string("event") == "reading", event.string("kind") == "glucose",
                  let mgdl = event.double("mgdl"), let time = event.string("time"),
                  let seconds = NetworkTime.seconds(time) else { return nil }
            if let device, event.string("device") != device { return nil }
            let stamp = event.double("sensorTime").map { "\(event.string("sensorRun") ?? "")/\(Int64($0))" }
            return ReportedGlucose(device: event.string("device"), mgdl: mgdl, seconds: seconds, time: time, stamp: stamp)
        }
    }

    /// The stored entry for this reading: an sgv of the same value whose time is within a
    /// second of the reading's (Vigil's event prints its own rounding of the same instant).
    func match(in stored: [StoredEntry]) -> [StoredEntry] {
        stored.filter { entry in
            entry.type == "sgv" && entry.sgv.map { abs($0 - mgdl) < 0.5 } == true
                && entry.seconds.map { abs($0 - seconds) <= 1 } == true
        }
    }
}

extension BackgroundVigil {
    /// Fails the test when a secret (or the form Vigil sends it in) appears in vigil's logs or
    /// stdout: docs/network.md says none is ever logged.
    func expectNoSecret(_ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let text = stderrText + stdoutText
        for secret in secrets where !secret.isEmpty {
            #expect(!text.contains(secret), "a secret was logged", sourceLocation: sourceLocation)
        }
    }
}
