#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import History
import Platform

/// A history opened again on a thread of its own, after it could not be opened at start.
///
/// Opening checks the whole file (`PRAGMA quick_check`, `HistoryStore.check`): 0.29 s for
/// 78 MiB on the x86 dev machine, so seconds to tens of seconds for the 1 GiB cap on a Pi.
/// At start that is before the loop and before READY=1, before systemd arms its watchdog; mid-run
/// it would hold the loop, with no alarm evaluated and no watchdog fed, and `WatchdogSec=30`
/// would end Vigil just as its storage came back. The storage fault is raised throughout:
/// the history is not open until the job says so.
enum HistoryOpening {
    /// What the job hands the loop. Unchecked: the job's thread makes the store and never
    /// touches it after returning, and `BackgroundJob.finish()` joins that thread before the
    /// loop sees it, so no two threads ever use the connection at once, which is all SQLite
    /// asks of a connection opened with SQLITE_OPEN_NOMUTEX.
    struct Opened: @unchecked Sendable {
        let result: Result<HistoryStore, HistoryError>
    }


    /// Starts opening `path`. `delay` holds the job first (for tests: a card that is slow).
    static func start(path: String, pendingLimit: Int, delay: Duration?) throws(PlatformError) -> BackgroundJob<Opened> {
        try BackgroundJob(name: "vigil-history") { _ in
            if let delay {
                var left = timespec(tv_sec: Int(delay.components.seconds),
                                    tv_nsec: Int(delay.components.attoseconds / 1_000_000_000))
                var asked = left
                while nanosleep(&asked, &left) == -1, errno == EINTR { asked = left }
            }
            do throws(HistoryError) {
                return Opened(result: .success(try HistoryStore.open(path: path, pendingLimit: pendingLimit)))
            } catch {
                return Opened(result: .failure(error))
            }
        }
    }
}
