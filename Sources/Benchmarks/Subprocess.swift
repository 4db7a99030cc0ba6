#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Clocks
import Platform

/// A child process started with posix_spawn(3): the benchmark launches `vigil`, Bumble's python
/// and btmon. No Foundation: the bench's own resident memory is one of the figures it reports.
struct Subprocess {
    let pid: pid_t
    let executable: String

    enum Failure: Error, CustomStringConvertible {
        case spawn(String, errno: Int32)
        var description: String {
            switch self {
            case let .spawn(path, code): "cannot start \(path): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Starts `arguments[0]` (searched on PATH when it has no slash) with stdout and stderr sent
    /// to the given files (`/dev/null` to discard; nil inherits ours) and stdin from /dev/null.
    static func spawn(_ arguments: [String], stdout: String? = "/dev/null", stderr: String? = "/dev/null") throws(Failure) -> Subprocess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let stdout { posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        if let stderr { posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let code = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        guard code == 0 else { throw .spawn(arguments[0], errno: code) }
        return Subprocess(pid: pid, executable: arguments[0])
    }

    /// Waits for the child; returns its exit status (128 + signal when killed).
    @discardableResult
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out: the C macros are not imported.
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Waits for the child at most `timeout`; its exit status, or nil if it is still running
    /// (a benchmark must report a run that never ends, not hang with it).
    func wait(timeout: Duration) -> Int32? {
        let deadline = SystemClock.monotonicNow() + timeout
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                let signal = status & 0x7F
                return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
            }
            if reaped < 0 && errno != EINTR { return -1 }
            if SystemClock.monotonicNow() >= deadline { return nil }
            IdleBenchmark.sleepMilliseconds(10)
        }
    }

    /// Whether the child has already exited (reaps it if so).
    func hasExited() -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid
    }

    func terminate() { kill(pid, SIGTERM) }

    /// Runs to completion and measures its wall time.
    static func timed(_ arguments: [String], stdout: String = "/dev/null", stderr: String = "/dev/null") throws(Failure) -> (status: Int32, wall: Duration) {
        let start = SystemClock.monotonicNow()
        let child = try spawn(arguments, stdout: stdout, stderr: stderr)
        let status = child.wait()
        return (status, SystemClock.monotonicNow() - start)
    }

    /// Whether `name` is an executable on PATH (or an executable path).
    static func which(_ name: String) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        let path = Environment.value("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        // btmon lives in /usr/bin on Debian, but root's PATH in a minimal container may lack sbin dirs.
        for dir in ["/usr/sbin", "/sbin"] where access("\(dir)/\(name)", X_OK) == 0 { return "\(dir)/\(name)" }
        return nil
    }
}

/// Figures for another process, read from /proc as `top` does.
enum ProcFigures {
    /// utime + stime of `pid` in clock ticks (/proc/PID/stat fields 14 and 15, proc(5)).
    static func cpuTicks(of pid: pid_t) -> Int? {
        guard let bytes = try? FileSystem.readFile(path: "/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        // The command name (field 2) is parenthesised and may hold spaces: split after the last ')'.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let rest = text[text.index(after: close)...].split(separator: " ")
        // rest[0] is field 3 (state), so field N is rest[N - 3].
        guard rest.count > 12, let utime = Int(rest[11]), let stime = Int(rest[12]) else { return nil }
        return utime + stime
    }

    /// VmRSS of `pid` in bytes (/proc/PID/status, in kB).
    static func residentBytes(of pid: pid_t) -> Int? { statusBytes("VmRSS:", of: pid) }

    /// A kB field of /proc/PID/status in bytes: VmRSS, RssAnon (heap, stacks), RssFile
    /// (pages of the executable and libraries).
    static func statusBytes(_ field: String, of pid: pid_t) -> Int? {
        guard let bytes = try? FileSystem.readFile(path: "/proc/\(pid)/status") else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix(field) {
            let number = line.dropFirst(field.count).filter { $0.isNumber }
            return Int(number).map { $0 * 1024 }
        }
        return nil
    }

    static var ticksPerSecond: Int { Int(sysconf(Int32(_SC_CLK_TCK))) }

    /// CPU time of `pid` in nanoseconds: /proc/PID/schedstat's first field (time on a CPU),
    /// summed over its threads; falls back to utime + stime, whose 10 ms ticks are too coarse
    /// to tell 0.03 % from 0.06 % over 30 s.
    static func cpuNanoseconds(of pid: pid_t) -> Int? {
        if let bytes = try? FileSystem.readFile(path: "/proc/\(pid)/schedstat"),
           let first = String(decoding: bytes, as: UTF8.self).split(separator: " ").first, let ns = Int(first) {
            var total = ns
            // schedstat of the process is its main thread only; add the others.
            if let threads = try? FileSystem.contentsOfDirectory(path: "/proc/\(pid)/task"), threads.count > 1 {
                total = 0
                for tid in threads {
                    guard let b = try? FileSystem.readFile(path: "/proc/\(pid)/task/\(tid)/schedstat"),
                          let f = String(decoding: b, as: UTF8.self).split(separator: " ").first, let n = Int(f) else { continue }
                    total += n
                }
            }
            return total
        }
        return cpuTicks(of: pid).map { $0 * (1_000_000_000 / ticksPerSecond) }
    }
}
