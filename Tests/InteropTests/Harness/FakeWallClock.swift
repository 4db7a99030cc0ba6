import Foundation
import Testing

/// A wall clock a test can step under a running `vigil`: a small preloaded library (C source
/// below, built with the Swift toolchain's clang on first use) adds an offset, read from a
/// file on every call, to CLOCK_REALTIME, and leaves CLOCK_MONOTONIC alone, as on a board
/// whose clock NTP sets or jumps. Writing the file steps the clock.
///
/// Why not libfaketime: its constructor changes the environment before Swift's runtime finds
/// argv, and a Swift program under it sees no arguments (swiftlang/swift#76080). Why
/// preloading at all: it only works on a dynamically linked vigil (the debug build the tests
/// run), and it needs no hook in vigil itself.
struct FakeWallClock {
    static let source = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <time.h>
        static int (*real_clock_gettime)(clockid_t, struct timespec *);
        int clock_gettime(clockid_t clock, struct timespec *now) {
            if (!real_clock_gettime) real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
            int result = real_clock_gettime(clock, now);
            if (result != 0 || (clock != CLOCK_REALTIME && clock != CLOCK_REALTIME_COARSE)) return result;
            const char *path = getenv("VIGIL_TEST_WALL_CLOCK_OFFSET_FILE");
            FILE *file = path ? fopen(path, "r") : NULL;
            if (!file) return result;
            long long offset;
            if (fscanf(file, "%lld", &offset) == 1) now->tv_sec += offset;
            fclose(file);
            return result;
        }
        """

    /// The toolchain's clang, beside `swift` (every Swift toolchain for Linux has one).
    static var compiler: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("clang") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    let library: URL
    let offsetFile: URL

    /// Builds the library in `directory` and starts the clock at `start`.
    init(directory: URL, start: Date) throws {
        let compiler = try #require(Self.compiler, "no clang on PATH: the wall clock cannot be faked")
        let source = directory.appendingPathComponent("fake-wall-clock.c")
        library = directory.appendingPathComponent("fake-wall-clock.so")
        offsetFile = directory.appendingPathComponent("wall-clock-offset")
        try Self.source.write(to: source, atomically: true, encoding: .utf8)
        let result = try ChildProcess.run(executable: compiler, arguments: ["-shared", "-fPIC", "-O2", "-o", library.path, source.path, "-ldl"],
                                           timeout: .seconds(60))
        try #require(result.exitCode == 0, "building the fake wall clock failed: \(result.summary)")
        try set(start)
    }

    /// Steps the clock to `time` (it runs on from there at the real rate).
    func set(_ time: Date) throws {
        let offset = Int64(time.timeIntervalSinceNow.rounded())
        try "\(offset)\n".write(to: offsetFile, atomically: true, encoding: .utf8)
    }

    /// This process's environment plus what makes vigil's clock read the offset.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = library.path
        environment["VIGIL_TEST_WALL_CLOCK_OFFSET_FILE"] = offsetFile.path
        return environment
    }
}

let fakeWallClockRequired: ConditionTrait = .enabled(
    if: FakeWallClock.compiler != nil, "no clang on PATH: the wall clock cannot be faked")
