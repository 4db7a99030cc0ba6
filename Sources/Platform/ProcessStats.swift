#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// Resource figures for benchmarks and the health line in the log.
public enum ProcessStats {
    /// CPU time used by this process so far.
    public struct CPUTime: Equatable, Sendable {
        public var user: Duration
        public var system: Duration
        public var total: Duration { user + system }
    }

    /// Resident set size in bytes (/proc/self/statm, second field, times the page size).
    public static func residentBytes() throws(PlatformError) -> Int {
        let text = String(decoding: try FileSystem.readFile(path: "/proc/self/statm"), as: UTF8.self)
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 2, let pages = Int(fields[1]) else {
            throw PlatformError(operation: "read(/proc/self/statm)", errno: 0, reason: "unexpected contents \"\(text)\"")
        }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// User and system CPU time (getrusage(RUSAGE_SELF)).
    public static func cpuTime() throws(PlatformError) -> CPUTime {
        var user: Int64 = 0
        var system: Int64 = 0
        guard vigil_cpu_time(&user, &system) == 0 else { throw .fromErrno("getrusage") }
        return CPUTime(user: .microseconds(user), system: .microseconds(system))
    }

    /// How many descriptors this process has open (entries of /proc/self/fd, less the one
    /// used to list them): a leak shows up here long before EMFILE.
    public static func openFileDescriptorCount() throws(PlatformError) -> Int {
        try FileSystem.contentsOfDirectory(path: "/proc/self/fd").count - 1
    }
}
