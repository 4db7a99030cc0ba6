#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Platform

/// The figures other decoders reach on the same capture, through the project's scripts:
/// `scripts/bench/bumble_decode_rate.py` (Bumble's `HCI_Packet.from_bytes`, run with the venv
/// python that `scripts/bumble-env.sh` prints) and `scripts/bench/btmon_time.sh`
/// (`btmon -r FILE > /dev/null`). Both print `key=value` lines. A missing script, venv or
/// tool is reported as such; nothing is estimated in its place.
struct ReferenceDecoders {
    var repoRoot: String
    var scriptsDirectory: String { repoRoot + "/scripts/bench" }

    func bumble(path: String, limit: Int) -> Figure {
        let name = "Bumble HCI_Packet.from_bytes (first \(Format.grouped(limit)) records)"
        let script = scriptsDirectory + "/bumble_decode_rate.py"
        let envScript = repoRoot + "/scripts/bumble-env.sh"
        guard FileSystem.exists(path: script) else { return .skipped(name, reason: "\(script) is not in this checkout") }
        guard FileSystem.exists(path: envScript) else { return .skipped(name, reason: "\(envScript) is not in this checkout") }
        // bumble-env.sh creates the venv on first use (pip, ~10 s) and prints its python last.
        guard let envOutput = run([envScript]), envOutput.status == 0,
              let python = envOutput.text.split(separator: "\n").last.map(String.init), FileSystem.exists(path: python)
        else { return .skipped(name, reason: "the Bumble venv is unavailable (scripts/bumble-env.sh failed)") }
        guard let result = run([python, script, path, "--limit", String(limit)]) else {
            return .skipped(name, reason: "cannot start \(python)")
        }
        let values = Self.keyValues(result.text)
        guard result.status == 0, let rate = values["bumble_reports_per_second"].flatMap({ Int($0) }) else {
            return .skipped(name, reason: "bumble_decode_rate.py exited \(result.status): \(result.text.suffix(200))")
        }
        let failures = values["decode_failures"].map { ", \($0) decode failures" } ?? ""
        let perRecord = values["microseconds_per_record"].map { ", \($0) µs each" } ?? ""
        return .info(name, "\(Format.grouped(rate)) reports/s\(perRecord)\(failures)")
    }

    func btmon(path: String, reports: Int) -> Figure {
        let name = "btmon -r FILE > /dev/null (\(Format.grouped(reports)) reports)"
        let script = scriptsDirectory + "/btmon_time.sh"
        guard FileSystem.exists(path: script) else { return .skipped(name, reason: "\(script) is not in this checkout") }
        guard let result = run([script, path]) else { return .skipped(name, reason: "cannot start \(script)") }
        let values = Self.keyValues(result.text)
        if values["btmon_unavailable"] != nil { return .skipped(name, reason: "btmon is not installed (Debian package bluez)") }
        guard result.status == 0, let seconds = values["btmon_wall_seconds"].flatMap({ Double($0) }) else {
            return .skipped(name, reason: "btmon_time.sh exited \(result.status): \(result.text.suffix(200))")
        }
        var value = "\(Format.fixed(seconds, places: 3)) s wall, \(Format.grouped(Int(Double(reports) / seconds))) reports/s"
        if let version = values["btmon_version"] { value += ", btmon \(version)" }
        if let exit = values["btmon_exit"], exit != "0" { value += ", btmon EXITED \(exit) (partial decode)" }
        return .info(name, value)
    }

    /// Runs a script to completion with stdout captured to a temporary file.
    private func run(_ arguments: [String]) -> (status: Int32, text: String)? {
        let output = "/tmp/vigil-bench-\(getpid())-\(arguments.count).out"
        defer { try? FileSystem.remove(path: output) }
        guard let child = try? Subprocess.spawn(arguments, stdout: output, stderr: "/dev/null") else { return nil }
        let status = child.wait()
        let text = (try? FileSystem.readFile(path: output)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return (status, text)
    }

    static func keyValues(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            values[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        return values
    }
}
