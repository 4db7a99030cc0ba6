#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Platform

/// Bumble's heart-rate monitor (Tests/Rigs/heart_rate_monitor.py) serving a virtual controller
/// on a TCP port, in a temporary directory that also holds the `vigil` configuration and log.
/// The idle and resident benchmarks run the real `vigil run` against it.
final class HeartRateRig {
    let directory: String
    let port: String
    private let process: Subprocess

    enum Failure: Error, CustomStringConvertible {
        case unavailable(String)
        var description: String {
            switch self { case .unavailable(let reason): reason }
        }
    }

    /// Starts the rig notifying at `rateHz` once subscribed and waits (at most 10 s) for its
    /// `READY <port>` line.
    init(repoRoot: String, rateHz: Double) throws(Failure) {
        let rigScript = repoRoot + "/Tests/Rigs/heart_rate_monitor.py"
        let envScript = repoRoot + "/scripts/bumble-env.sh"
        guard FileSystem.exists(path: rigScript), FileSystem.exists(path: envScript) else {
            throw .unavailable("\(rigScript) or \(envScript) is not in this checkout")
        }
        guard let temp = try? FileSystem.makeTemporaryDirectory(prefix: "vigil-bench") else { throw .unavailable("no temporary directory") }
        // The venv must already exist or be creatable; bumble-env.sh prints its python last.
        guard (try? Subprocess.spawn([envScript], stdout: temp + "/env.out"))?.wait() == 0,
              let envText = try? FileSystem.readFile(path: temp + "/env.out"),
              let python = String(decoding: envText, as: UTF8.self).split(separator: "\n").last.map(String.init)
        else {
            try? FileSystem.removeTree(path: temp)
            throw .unavailable("the Bumble venv is unavailable (scripts/bumble-env.sh failed)")
        }
        let arguments = [python, rigScript, "--port", "0", "--rate-hz", "\(rateHz)"]
        guard let rig = try? Subprocess.spawn(arguments, stdout: temp + "/rig.out", stderr: temp + "/rig.err") else {
            try? FileSystem.removeTree(path: temp)
            throw .unavailable("cannot start the heart-rate rig")
        }
        var port: String?
        for _ in 0..<100 where port == nil {
            IdleBenchmark.sleepMilliseconds(100)
            port = Self.lines(of: temp + "/rig.out").first { $0.hasPrefix("READY ") }.map { String($0.dropFirst(6)) }
            if rig.hasExited() { break }
        }
        guard let port else {
            rig.terminate()
            rig.wait()
            try? FileSystem.removeTree(path: temp)
            throw .unavailable("the rig did not print READY within 10 s (see its stderr)")
        }
        directory = temp
        self.port = port
        process = rig
    }

    deinit {
        process.terminate()
        process.wait()
        try? FileSystem.removeTree(path: directory)
    }

    /// Writes `text` as the configuration and returns the `vigil run` arguments that use it.
    func runArguments(vigil: String, configuration text: String, extra: [String] = []) -> [String] {
        let config = directory + "/vigil.conf"
        try? AtomicFile.write(path: config, bytes: Array(text.utf8), mode: 0o644)
        return [vigil, "run", "--config", config, "--hci", "tcp:127.0.0.1:\(port)",
                "--state-dir", directory + "/state", "--log-level", "notice"] + extra
    }

    /// Heart-rate notifications the rig has sent so far (its `"sent":"hrm"` lines).
    var notificationsSent: Int { Self.count(of: "\"sent\":\"hrm\"", in: directory + "/rig.out") }

    static func lines(of path: String) -> [Substring] {
        guard let bytes = try? FileSystem.readFile(path: path) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n")
    }

    /// Occurrences of `needle` in the file, counted on bytes (the rig's log grows to megabytes).
    static func count(of needle: String, in path: String) -> Int {
        guard let bytes = try? FileSystem.readFile(path: path) else { return 0 }
        let pattern = Array(needle.utf8)
        guard let first = pattern.first, bytes.count >= pattern.count else { return 0 }
        var found = 0
        var i = 0
        let last = bytes.count - pattern.count
        while i <= last {
            if bytes[i] == first, bytes[i..<(i + pattern.count)].elementsEqual(pattern) {
                found += 1
                i += pattern.count
            } else {
                i += 1
            }
        }
        return found
    }
}
