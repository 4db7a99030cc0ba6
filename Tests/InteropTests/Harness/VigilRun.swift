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

    init(rig: Rig, state: StateDirectory, pair: Bool, seconds: Int) throws {
        let info = try rig.info()
        address = try #require(info.string("address"))
        let config = try state.writeConfig(name: try #require(info.string("name")), address: nil, pair: pair)
        rigStart = rig.lineCount
        result = try VigilProcess().run(
            ["run"] + VigilProcess.hci(rig)
                + ["--config", config.path, "--state-dir", state.url.path, "--events-json", "--seconds", "\(seconds)"],
            timeout: .seconds(seconds + 30))
        // Let the rig print what it sent up to the disconnection before reading its log.
        _ = try rig.waitFor(since: rigStart, timeout: .seconds(2)) {
            $0.string("event") == "disconnected" || $0.string("event") == "link-dropped-by-rig"
        }
        rigRecords = try rig.records(since: rigStart)
        rigStderr = rig.stderrText
        events = (try? NDJSON.parse(result.stdoutText)) ?? []
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
