#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Clocks
import Platform

/// `vigil-bench idle`: the real `vigil` binary at rest. CPU time (utime + stime from
/// /proc/PID/stat) over the period as a percentage of one core, and VmRSS from
/// /proc/PID/status, sampled each second after a warm-up that excludes bring-up, connection
/// and discovery.
///
/// `vigil run` against Bumble's heart-rate rig (Tests/Rigs/heart_rate_monitor.py) is the
/// figure that must stay under 0.1 %; `vigil demo` is reported too, though it also simulates
/// the radio in-process, so its CPU includes the peripherals' work.
enum IdleBenchmark {
    static let cpuLimitPercent = 0.1

    struct Options {
        var seconds = 30
        var warmUpSeconds = 5
        var vigil = ".build/release/vigil"
        var repoRoot = "."
    }

    struct Sample {
        var cpuPercent: Double
        var maxResident: Int
        var lastResident: Int
    }

    static func run(_ options: Options) -> [Figure] {
        print("== idle: the vigil binary over \(options.seconds) s after \(options.warmUpSeconds) s of warm-up")
        let cpuTarget = "< 0.1 % of one core"
        guard access(options.vigil, X_OK) == 0 else {
            let reason = "no vigil binary at \(options.vigil) (scripts/release builds it)"
            let figures = [Figure.skipped("idle vigil run: CPU", target: cpuTarget, reason: reason),
                           Figure.skipped("idle vigil run: resident", target: "< 10 MiB", reason: reason),
                           Figure.skipped("idle vigil demo: CPU", reason: reason)]
            figures.forEach { print($0.line) }
            return figures
        }
        var figures: [Figure] = []

        // demo: simulated radio in-process.
        switch measure([options.vigil, "demo", "--log-level", "warning"], options: options) {
        case .success(let s):
            figures.append(.info("idle vigil demo: CPU (simulates the radio too)", Format.fixed(s.cpuPercent, places: 3) + " %"))
            figures.append(.info("idle vigil demo: resident", "\(Format.megabytes(s.lastResident)) (max \(Format.megabytes(s.maxResident)))"))
        case .failure(let reason):
            figures.append(.checked("idle vigil demo", reason, target: "runs", passes: false))
        }
        figures.suffix(2).forEach { print($0.line) }

        // run: against the Bumble heart-rate rig over TCP.
        let runFigures = measureRun(options)
        runFigures.forEach { print($0.line) }
        return figures + runFigures
    }

    enum Outcome {
        case success(Sample)
        case failure(String)
    }

    static func measure(_ arguments: [String], options: Options, log: String = "/dev/null") -> Outcome {
        let child: Subprocess
        do { child = try Subprocess.spawn(arguments, stdout: log, stderr: log) } catch { return .failure("\(error)") }
        defer {
            child.terminate()
            child.wait()
        }
        sleepSeconds(options.warmUpSeconds)
        if child.hasExited() { return .failure("\(arguments.prefix(2).joined(separator: " ")) exited during warm-up") }
        guard let startCPU = ProcFigures.cpuNanoseconds(of: child.pid), let startTicks = ProcFigures.cpuTicks(of: child.pid) else {
            return .failure("cannot read /proc/\(child.pid)/schedstat or stat")
        }
        let start = SystemClock.monotonicNow()
        var maxResident = 0
        var lastResident = 0
        for _ in 0..<options.seconds {
            sleepSeconds(1)
            guard let rss = ProcFigures.residentBytes(of: child.pid) else {
                return .failure("\(arguments.prefix(2).joined(separator: " ")) exited during the measurement")
            }
            lastResident = rss
            maxResident = max(maxResident, rss)
        }
        guard let endCPU = ProcFigures.cpuNanoseconds(of: child.pid), let endTicks = ProcFigures.cpuTicks(of: child.pid) else {
            return .failure("cannot read /proc/\(child.pid)/schedstat or stat")
        }
        let wall = (SystemClock.monotonicNow() - start).seconds
        let cpu = Double(endCPU - startCPU) / 1e9 / wall * 100
        let anonymous = ProcFigures.statusBytes("RssAnon:", of: child.pid) ?? -1
        let file = ProcFigures.statusBytes("RssFile:", of: child.pid) ?? -1
        print("  \(arguments.prefix(2).joined(separator: " ")): \(Format.fixed(Double(endCPU - startCPU) / 1e6, places: 1)) ms on CPU "
              + "(schedstat; utime+stime \(endTicks - startTicks) ticks of 1/\(ProcFigures.ticksPerSecond) s) in \(Format.fixed(wall, places: 1)) s; "
              + "VmRSS last \(Format.megabytes(lastResident)) [anonymous \(Format.megabytes(anonymous)), file-backed \(Format.megabytes(file))]")
        return .success(Sample(cpuPercent: cpu, maxResident: maxResident, lastResident: lastResident))
    }

    /// `vigil run --hci tcp:127.0.0.1:PORT` with a one-device configuration, the rig serving
    /// the heart-rate monitor at its usual 1 Hz.
    static func measureRun(_ options: Options) -> [Figure] {
        let cpuName = "idle vigil run: CPU"
        let rssName = "idle vigil run: resident"
        let cpuTarget = "< 0.1 % of one core"
        let rig: HeartRateRig
        do { rig = try HeartRateRig(repoRoot: options.repoRoot, rateHz: 1) } catch {
            return [Figure.skipped(cpuName, target: cpuTarget, reason: "\(error)"), Figure.skipped(rssName, target: "< 10 MiB", reason: "\(error)")]
        }
        let arguments = rig.runArguments(vigil: options.vigil, configuration: "[[device]]\ntype = \"heart-rate\"\n")
        switch measure(arguments, options: options, log: rig.directory + "/vigil.log") {
        case .success(let s):
            let notifications = rig.notificationsSent
            print("  the rig sent \(notifications) heart-rate notifications while vigil ran")
            return [
                Figure.checked(cpuName, Format.fixed(s.cpuPercent, places: 3) + " %", target: cpuTarget,
                               passes: s.cpuPercent < cpuLimitPercent && notifications > 0),
                Figure.checked(rssName, "\(Format.megabytes(s.lastResident)) (max \(Format.megabytes(s.maxResident)) = \(Format.fixed(Double(s.maxResident) / 1e6, places: 2)) MB)",
                               target: "< 10 MiB", passes: s.maxResident < ResidentBenchmark.limitBytes),
            ]
        case .failure(let reason):
            let log = (try? FileSystem.readFile(path: rig.directory + "/vigil.log")).map { String(decoding: $0.suffix(400), as: UTF8.self) } ?? ""
            return [Figure.checked(cpuName, "\(reason); log: \(log)", target: cpuTarget, passes: false)]
        }
    }

    static func sleepSeconds(_ seconds: Int) { sleepMilliseconds(seconds * 1000) }

    static func sleepMilliseconds(_ ms: Int) {
        var request = timespec(tv_sec: ms / 1000, tv_nsec: (ms % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
