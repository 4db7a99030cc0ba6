#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform
import Clocks
import Synchronization

/// One blocking job on a thread of its own, so the event loop keeps turning while it runs.
///
/// The one user is the button's USB export: seconds of SQLite reads, writes and fsyncs to a
/// stick, during which a loop that ran it in place would evaluate no alarm, drive no buzzer
/// and feed no systemd watchdog (a large history on a slow stick outlasts `WatchdogSec`, and
/// systemd would kill Vigil mid-export, again at every try). The job shares nothing with the
/// loop but what it was given (Sendable) and its result: it opens its own files and its own
/// database connection.
///
/// The loop polls `descriptor`, an eventfd that becomes readable once the job has returned;
/// `finish()` then joins the thread and hands over the result. `requestStop()` sets the flag
/// the job's `stopRequested` reads, which the job checks between pieces of work (a SIGTERM
/// mid-export ends it within one piece). The thread starts with every signal blocked, so
/// signals still reach the loop's signalfd.
public final class BackgroundJob<Value: Sendable> {
    /// Readable (and stays readable) once the job has returned.
    public let descriptor: Int32
    private let shared: Shared
    private var thread: pthread_t?

    /// Starts `work` on a new thread named `name` (at most 15 bytes, for `top -H`).
    public init(name: String, _ work: @escaping @Sendable (_ stopRequested: @Sendable () -> Bool) -> Value) throws(PlatformError) {
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { throw .fromErrno("eventfd(\(name))") }
        let shared = Shared(descriptor: fd)
        let stop: @Sendable () -> Bool = { shared.stopRequested.load(ordering: .acquiring) }
        let context = ThreadContext(name: name) {
            let value = work(stop)
            shared.result.withLock { $0 = value }
            // An eventfd counter only fails to take 1 if it would overflow: it cannot here.
            _ = eventfd_write(shared.descriptor, 1)
        }
        let retained = Unmanaged.passRetained(context).toOpaque()
        switch createSignalFreeThread(backgroundJobMain, retained) {
        case .success(let created):
            self.thread = created
        case .failure(let error):
            Unmanaged<ThreadContext>.fromOpaque(retained).release()  // and with it `shared`, which closes the eventfd
            throw .system("pthread_create(\(name))", errno: error.code)
        }
        self.descriptor = fd
        self.shared = shared
    }

    /// Whether the job has returned (its result waits for `finish()`).
    public var isFinished: Bool { shared.result.withLock { $0 != nil } }

    /// Asks the job to stop at its next check; it still returns a result (its own "stopped").
    public func requestStop() { shared.stopRequested.store(true, ordering: .releasing) }

    /// Waits for the job to return (at once after `descriptor` was readable) and gives its
    /// result; nil only when called a second time.
    public func finish() -> Value? {
        guard let running = thread else { return nil }
        pthread_join(running, nil)
        thread = nil
        return shared.result.withLock { value in
            defer { value = nil }
            return value
        }
    }

    /// Waits up to `limit` for the job to return; true when it has (`finish()` then does not
    /// block). For an owner about to exit that will not wait for ever on a job that may hang.
    public func wait(upTo limit: Duration) -> Bool {
        let deadline = SystemClock.monotonicNow() + limit
        while !isFinished {
            let now = SystemClock.monotonicNow()
            guard now < deadline else { return false }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, PollLoop.timeoutMilliseconds(from: now, until: deadline))
        }
        return true
    }

    /// Leaves a job that does not return (a read stuck on a card that stopped answering, a
    /// name the resolver is still asking about) to end on its own: the owner goes without
    /// waiting. Its thread is detached; its descriptor stays open until the job returns, since
    /// the job signals it then, and is closed by whichever of the two lets go last. The owner
    /// stops polling the descriptor now: each abandoned job keeps a thread until it returns.
    public func abandon() {
        guard let running = thread else { return }
        pthread_detach(running)
        thread = nil
    }

    /// A job still running when its owner goes is stopped and waited for: its thread must not
    /// outlive the files and the connection it was writing (unless it was `abandon()`ed).
    deinit {
        if thread != nil {
            requestStop()
            _ = finish()
        }
    }

    /// What the loop's side and the job's thread both touch. The job's closure holds it until
    /// the job returns, so the descriptor is closed once neither side can use it.
    private final class Shared: Sendable {
        let descriptor: Int32
        let result = Mutex<Value?>(nil)
        let stopRequested = Atomic<Bool>(false)
        init(descriptor: Int32) { self.descriptor = descriptor }
        deinit { close(descriptor) }
    }
}

/// The thread's name and body, handed through `pthread_create`'s one pointer.
private final class ThreadContext: Sendable {
    let name: String
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}

/// The job thread's entry point: takes the reference the initialiser retained.
private func backgroundJobMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let job = Unmanaged<ThreadContext>.fromOpaque(context).takeRetainedValue()
    // Named for `top -H`. Cosmetic: a failure is ignored.
    _ = vigil_name_this_thread(String(job.name.utf8.prefix(15)) ?? job.name)
    job.body()
    return nil
}
