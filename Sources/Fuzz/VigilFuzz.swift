import FuzzTargets

// vigil-fuzz: the libFuzzer driver for every FuzzTarget.
//
// Built by scripts/fuzz with `-sanitize=fuzzer,address -DFUZZING`: this file exports
// libFuzzer's two hooks and hands `main` to libFuzzer's driver. The target comes from `--target=NAME` (libFuzzer ignores
// flags that start with `--`) or VIGIL_FUZZ_TARGET.
//
// A plain build (`swift build`) gets a small `main` instead, so the product always links:
//   vigil-fuzz list                     the targets and what each drives
//   vigil-fuzz replay NAME FILE...      runs files through a target (a crash reproduces here)

#if canImport(Glibc)
import Glibc
#endif

/// Standard error by file descriptor: the C `stderr` global is not concurrency-safe in Swift 6.
func writeError(_ text: String) {
    var text = text
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

#if FUZZING

nonisolated(unsafe) private var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> Int32 {
    var name: String?
    for i in 0..<Int(argc.pointee) {
        guard let pointer = argv.pointee[i] else { continue }
        let argument = String(cString: pointer)
        if argument.hasPrefix("--target=") { name = String(argument.dropFirst("--target=".count)) }
    }
    if name == nil, let value = getenv("VIGIL_FUZZ_TARGET") { name = String(cString: value) }
    guard let name, let target = FuzzTarget.named(name) else {
        let known = FuzzTarget.all.map(\.name).joined(separator: " ")
        writeError("vigil-fuzz: name a target with --target=NAME or VIGIL_FUZZ_TARGET; known: \(known)\n")
        exit(2)
    }
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    selected?.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

/// libFuzzer's driver (compiler-rt FuzzerInterface.h), which runs `LLVMFuzzerInitialize` and
/// then the loop. Declared by symbol name: the pointer and Int32 arguments pass in the same
/// registers under the Swift and C conventions.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

/// SwiftPM links every executable with its own entry point renamed to `main`, so libFuzzer's
/// `main` cannot be used; this one hands the arguments to libFuzzer's driver instead.
@main
struct VigilFuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv) { data, size in fuzzerTestOneInput(data, size) })
    }
}

#else

@main
struct VigilFuzz {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "list":
            for target in FuzzTarget.all { print("\(target.name)\t\(target.summary)") }
        case "replay" where arguments.count >= 3:
            guard let target = FuzzTarget.named(arguments[1]) else { fail("unknown target \(arguments[1])") }
            for path in arguments.dropFirst(2) {
                guard let bytes = readFile(path) else { fail("\(path): cannot read (errno \(errno))") }
                target.run(bytes)
                print("\(target.name) \(path): \(bytes.count) bytes, no crash")
            }
        default:
            fail("usage: vigil-fuzz list | vigil-fuzz replay NAME FILE...  (fuzzing: scripts/fuzz)")
        }
    }

    static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            bytes += chunk[0..<n]
            if n < chunk.count { return ferror(file) == 0 ? bytes : nil }
        }
    }

    static func fail(_ message: String) -> Never {
        writeError("vigil-fuzz: \(message)\n")
        exit(2)
    }
}
#endif
