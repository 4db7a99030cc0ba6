#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Clocks
import History
import Platform

/// `vigil-bench resident`: the real `vigil run` binary with one connected heart-rate monitor
/// and scanning on, over 100,000 notifications. The target: resident memory under 10 MB, and
/// flat over those 100,000 notifications (growth there would be a leak in an appliance that runs
/// for months).
///
/// Bumble's rig notifies as fast as it can (about 700 a second on this machine, so the run
/// takes two to three minutes). A second, absent heart-rate monitor is configured with a fixed
/// address, so the scanner stays on for the whole run as it does in a bedroom where one
/// configured sensor is out of range. VmRSS is sampled every 10,000 notifications; the figure
/// is checked against 10 MB as memory is counted (10 MiB, 10,485,760 bytes; the decimal
/// figure is printed too), and "flat" means less than 256 KiB of growth between the 10,000th
/// and the last sample —
/// a leak of 3 bytes a notification would show. vigil runs as the appliance does (no
/// `--events-json`); afterwards the heart-rate readings in its history are counted, so the
/// figure is only a pass if vigil really decoded and stored what the rig sent.
enum ResidentBenchmark {
    static let limitBytes = 10 * 1_048_576
    static let growthLimitBytes = 256 * 1024
    static let sampleEvery = 10_000

    struct Options {
        var notifications = 100_000
        var vigil = ".build/release/vigil"
        var repoRoot = "."
        var timeoutSeconds = 600
    }

    static func run(_ options: Options) -> [Figure] {
        let name = "vigil run under load: resident"
        let flatName = "vigil run under load: growth"
        print("== resident: vigil run with a heart-rate monitor notifying as fast as Bumble can, until \(Format.grouped(options.notifications)) notifications")
        func skip(_ reason: String) -> [Figure] {
            let figures = [Figure.skipped(name, target: "< 10 MiB", reason: reason), Figure.skipped(flatName, target: "< 256 KiB", reason: reason)]
            figures.forEach { print($0.line) }
            return figures
        }
        guard access(options.vigil, X_OK) == 0 else { return skip("no vigil binary at \(options.vigil) (scripts/release builds it)") }
        let rig: HeartRateRig
        do { rig = try HeartRateRig(repoRoot: options.repoRoot, rateHz: 5000) } catch { return skip("\(error)") }
        let configuration = """
            [[device]]
            type = "heart-rate"
            name = "Vigil HRM"

            # Never in range: keeps the scanner running for the whole measurement.
            [[device]]
            type = "heart-rate"
            label = "absent strap"
            address = "C2:99:88:77:66:55"
            """
        let child: Subprocess
        do {
            child = try Subprocess.spawn(rig.runArguments(vigil: options.vigil, configuration: configuration),
                                         stdout: rig.directory + "/vigil.out", stderr: rig.directory + "/vigil.log")
        } catch { return skip("cannot start vigil: \(error)") }
        var stopped = false
        defer {
            if !stopped {
                child.terminate()
                child.wait()
            }
        }
        let start = SystemClock.monotonicNow()
        var samples: [(notifications: Int, bytes: Int)] = []
        var nextSample = sampleEvery
        var sent = 0
        while sent < options.notifications {
            IdleBenchmark.sleepMilliseconds(250)
            if child.hasExited() { return [Figure.checked(name, "vigil exited during the run (see its log)", target: "runs", passes: false)] }
            if (SystemClock.monotonicNow() - start) > .seconds(options.timeoutSeconds) {
                return [Figure.checked(name, "only \(Format.grouped(sent)) notifications in \(options.timeoutSeconds) s", target: "runs", passes: false)]
            }
            sent = rig.notificationsSent
            if sent >= nextSample, let rss = ProcFigures.residentBytes(of: child.pid) {
                samples.append((sent, rss))
                print("  \(Format.grouped(sent)) notifications: VmRSS \(Format.megabytes(rss)) (\(Format.fixed(Double(rss) / 1e6, places: 2)) MB)")
                StandardOutput.flush()
                while nextSample <= sent { nextSample += sampleEvery }
            }
        }
        // Let vigil catch up with what is in flight, stop it (it commits what is pending), and
        // count what it stored.
        IdleBenchmark.sleepMilliseconds(1000)
        child.terminate()
        child.wait()
        stopped = true
        let decoded: Int
        do {
            let history = try HistoryStore.open(path: rig.directory + "/state/history.sqlite")
            decoded = try history.counts().readings[.heartRate] ?? 0
        } catch {
            return [Figure.checked(name, "cannot read vigil's history: \(error)", target: "runs", passes: false)]
        }
        let seconds = (SystemClock.monotonicNow() - start).seconds
        guard let first = samples.first, let maxBytes = samples.map(\.bytes).max(), let last = samples.last else {
            return [Figure.checked(name, "no samples", target: "runs", passes: false)]
        }
        let growth = last.bytes - first.bytes
        print("  the rig sent \(Format.grouped(rig.notificationsSent)) notifications in \(Format.fixed(seconds, places: 1)) s; vigil stored \(Format.grouped(decoded)) heart-rate readings")
        let decodedAll = decoded >= options.notifications * 99 / 100
        let figures = [
            Figure.checked(name, "\(Format.megabytes(maxBytes)) = \(Format.fixed(Double(maxBytes) / 1e6, places: 2)) MB max over \(samples.count) samples"
                           + (decodedAll ? "" : "; vigil stored only \(Format.grouped(decoded)) heart-rate readings"),
                           target: "< 10 MiB", passes: maxBytes < limitBytes && decodedAll),
            Figure.checked(flatName, "\(growth / 1024) KiB from \(Format.grouped(first.notifications)) to \(Format.grouped(last.notifications)) notifications",
                           target: "< 256 KiB", passes: growth < growthLimitBytes),
        ]
        figures.forEach { print($0.line) }
        return figures
    }
}
