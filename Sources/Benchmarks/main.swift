#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Platform

// vigil-bench: the performance targets from the issue, each printed with PASS/FAIL.
//   vigil-bench                      all three, then a summary table
//   vigil-bench adverts [--count N] [--file PATH] [--bumble-limit N]
//   vigil-bench memory  [--notifications N] [--advertisers N] [--interval-ms N]
//   vigil-bench idle    [--seconds N] [--warm-up N] [--vigil PATH]
//   common: --repo DIR (where scripts/ and Tests/Rigs/ are; default: the current directory)
// Exit status 1 if any checked figure fails, 2 for a usage error. Skipped figures (a missing
// tool or binary) are reported as skipped, never as passes.

let usage = """
    usage: vigil-bench [adverts|memory|idle] [options]
      adverts  --count N (1000000)  --file PATH  --bumble-limit N (100000)
      memory   --notifications N (100000)  --advertisers N (20)  --interval-ms N (1000)
      idle     --seconds N (30)  --warm-up N (5)  --vigil PATH (.build/release/vigil)
      any      --repo DIR (.)
    """

var arguments = Array(CommandLine.arguments.dropFirst())
var commands: [String] = []
var adverts = AdvertsBenchmark.Options()
var memory = MemoryBenchmark.Options()
var idle = IdleBenchmark.Options()

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

var index = 0
while index < arguments.count {
    let argument = arguments[index]
    let value = index + 1 < arguments.count ? arguments[index + 1] : nil
    var consumed = 2
    switch argument {
    case "adverts", "memory", "idle": commands.append(argument); consumed = 1
    case "--count": adverts.count = intValue(argument, value)
    case "--file": adverts.file = text(argument, value)
    case "--bumble-limit": adverts.bumbleLimit = intValue(argument, value)
    case "--notifications": memory.notifications = intValue(argument, value)
    case "--advertisers": memory.advertisers = intValue(argument, value)
    case "--interval-ms": memory.advertisingInterval = .milliseconds(intValue(argument, value))
    case "--seconds": idle.seconds = intValue(argument, value)
    case "--warm-up": idle.warmUpSeconds = intValue(argument, value)
    case "--vigil": idle.vigil = text(argument, value)
    case "--repo":
        let root = text(argument, value)
        adverts.repoRoot = root
        idle.repoRoot = root
    case "-h", "--help": print(usage); exit(0)
    default: fail("unknown argument \(argument)")
    }
    index += consumed
}
// memory runs first: its figure is this process's resident size, which must not include what
// the adverts benchmark's 70 MB capture left in the allocator.
if commands.isEmpty { commands = ["memory", "adverts", "idle"] }

var figures: [Figure] = []
for command in commands {
    switch command {
    case "adverts": figures += AdvertsBenchmark.run(adverts)
    case "memory": figures += MemoryBenchmark.run(memory)
    default: figures += IdleBenchmark.run(idle)
    }
    StandardOutput.flush()
}
let allPassed = Summary.printTable(figures)
StandardOutput.flush()
exit(allPassed ? 0 : 1)
