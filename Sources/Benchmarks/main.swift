#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Platform

// vigil-bench: the performance targets from the issue, each printed with PASS/FAIL.
//   vigil-bench                      all of them, then a summary table
//   vigil-bench adverts [--count N] [--file PATH] [--bumble-limit N]
//   vigil-bench memory  [--notifications N] [--advertisers N] [--interval-ms N]
//   vigil-bench idle    [--seconds N] [--warm-up N] [--vigil PATH]
//   vigil-bench resident [--resident-notifications N] [--vigil PATH]
//   vigil-bench alarm-latency [--crossings N] [--browsers N]
//   vigil-bench history [--glucose-rows N] [--heart-rate-rows N] [--batch N]
//   vigil-bench replay  [--count N] [--vigil PATH]
//   vigil-bench soak [--hours N] [--json]   (not part of the all-benchmarks run: scripts/bench/run.sh adds it)
//   common: --repo DIR (where scripts/ and Tests/Rigs/ are; default: the current directory)
// Exit status 1 if any checked figure fails, 2 for a usage error. Skipped figures (a missing
// tool or binary) are reported as skipped, never as passes.

let usage = """
    usage: vigil-bench [adverts|memory|idle|resident|alarm-latency|history|replay|soak] [options]
      adverts  --count N (1000000)  --file PATH (where the capture is written)  --bumble-limit N (100000)
      memory   --notifications N (100000)  --advertisers N (20)  --interval-ms N (1000)
      idle     --seconds N (30)  --warm-up N (5)  --vigil PATH (.build/release/vigil)
      resident --resident-notifications N (100000)  --vigil PATH
      alarm-latency  --crossings N (1000) --browsers N (20; 0: no page)
      history  --glucose-rows N (105120)  --heart-rate-rows N (604800)  --batch N (1000)
      replay   --count N (1000000)  --vigil PATH (.build/release/vigil)
      soak     --hours N (24)  --json  --advertisers N (40)
      any      --repo DIR (.)
    """

var arguments = Array(CommandLine.arguments.dropFirst())
var commands: [String] = []
var adverts = AdvertsBenchmark.Options()
var memory = MemoryBenchmark.Options()
var idle = IdleBenchmark.Options()
var resident = ResidentBenchmark.Options()
var alarmLatency = AlarmLatencyBenchmark.Options()
var history = HistoryBenchmark.Options()
var replay = ReplayBenchmark.Options()

func fail(_ message: String) -> Never {
    StandardError.write("vigil-bench: \(message)\n\(usage)")
    exit(2)
}

func text(_ option: String, _ value: String?) -> String {
    guard let value else { fail("\(option) needs a value") }
    return value
}

func intValue(_ option: String, _ value: String?) -> Int {
    guard let value, let n = Int(value.filter { $0 != "_" && $0 != "," }), n > 0 else { fail("\(option) needs a positive whole number") }
    return n
}

// `soak`: its own options and report (a table or one JSON document), exit 1 on FAIL.
if arguments.contains("soak") {
    var soak = SoakBenchmark.Options()
    var i = 0
    while i < arguments.count {
        let value = i + 1 < arguments.count ? arguments[i + 1] : nil
        switch arguments[i] {
        case "soak": i += 1
        case "--hours": soak.hours = intValue("--hours", value); i += 2
        case "--advertisers": soak.crowd = intValue("--advertisers", value); i += 2
        case "--json": soak.json = true; i += 1
        case "--repo", "--vigil": i += 2  // scripts/bench/run.sh passes them to every benchmark
        default: fail("unknown soak argument \(arguments[i])")
        }
    }
    exit(SoakBenchmark.run(soak) ? 0 : 1)
}

/// Set by the parent when it runs a benchmark as a child: where to write the figures.
var figuresFile: String?
var index = 0
while index < arguments.count {
    let argument = arguments[index]
    let value = index + 1 < arguments.count ? arguments[index + 1] : nil
    var consumed = 2
    switch argument {
    case "adverts", "memory", "idle", "resident", "alarm-latency", "history", "replay": commands.append(argument); consumed = 1
    case "--count":
        adverts.count = intValue(argument, value)
        replay.count = adverts.count
    case "--file": adverts.file = text(argument, value)
    case "--bumble-limit": adverts.bumbleLimit = intValue(argument, value)
    case "--notifications": memory.notifications = intValue(argument, value)
    case "--advertisers": memory.advertisers = intValue(argument, value)
    case "--interval-ms": memory.advertisingInterval = .milliseconds(intValue(argument, value))
    case "--seconds": idle.seconds = intValue(argument, value)
    case "--warm-up": idle.warmUpSeconds = intValue(argument, value)
    case "--vigil":
        idle.vigil = text(argument, value)
        resident.vigil = idle.vigil
        replay.vigil = idle.vigil
    case "--resident-notifications": resident.notifications = intValue(argument, value)
    case "--crossings": alarmLatency.crossings = intValue(argument, value)
    case "--browsers":
        // 0 is a real choice here: the alarm path without the page.
        guard let value, let n = Int(value), n >= 0 else { fail("--browsers needs a whole number, 0 or more") }
        alarmLatency.browsers = n
    case "--glucose-rows": history.glucoseRows = intValue(argument, value)
    case "--heart-rate-rows": history.heartRateRows = intValue(argument, value)
    case "--batch": history.batch = intValue(argument, value)
    case "--repo":
        let root = text(argument, value)
        adverts.repoRoot = root
        idle.repoRoot = root
        resident.repoRoot = root
    case "--figures-to": figuresFile = text(argument, value)
    case "-h", "--help": print(usage); exit(0)
    default: fail("unknown argument \(argument)")
    }
    index += consumed
}
if commands.isEmpty {
    // All of them: each in a fresh child process (this executable again), so neither measures
    // what another left behind - the decode rate dropped from ~6.0 to ~4.5 M reports/s after
    // the memory run in the same process, and the 70 MB capture would inflate resident memory.
    var collected: [Figure] = []
    for command in ["adverts", "memory", "idle", "resident", "alarm-latency", "history", "replay"] {
        let file = "/tmp/vigil-bench-\(getpid())-\(command).figures"
        defer { try? FileSystem.remove(path: file) }
        StandardOutput.flush()
        let status: Int32
        do {
            status = try Subprocess.spawn(["/proc/self/exe", command] + arguments + ["--figures-to", file], stdout: nil, stderr: nil).wait()
        } catch {
            collected.append(.checked(command, "cannot start a child benchmark: \(error)", target: "runs", passes: false))
            continue
        }
        let text = (try? FileSystem.readFile(path: file)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let parsed = text.split(separator: "\n").compactMap { Figure(record: $0) }
        if parsed.isEmpty { collected.append(.checked(command, "the child benchmark exited \(status) with no figures", target: "runs", passes: false)) }
        collected += parsed
    }
    exit(Summary.printTable(collected) ? 0 : 1)
}

var figures: [Figure] = []
for command in commands {
    switch command {
    case "adverts": figures += AdvertsBenchmark.run(adverts)
    case "memory": figures += MemoryBenchmark.run(memory)
    case "resident": figures += ResidentBenchmark.run(resident)
    case "alarm-latency": figures += AlarmLatencyBenchmark.run(alarmLatency)
    case "history": figures += HistoryBenchmark.run(history)
    case "replay": figures += ReplayBenchmark.run(replay)
    default: figures += IdleBenchmark.run(idle)
    }
    StandardOutput.flush()
}
if let figuresFile {
    try? AtomicFile.write(path: figuresFile, bytes: Array(figures.map { $0.record + "\n" }.joined().utf8), mode: 0o644)
    exit(figures.contains { $0.verdict == .fail } ? 1 : 0)
}
let allPassed = Summary.printTable(figures)
StandardOutput.flush()
exit(allPassed ? 0 : 1)
