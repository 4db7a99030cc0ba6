#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// Sounds a PASSIVE buzzer (a bare piezo or magnetic transducer with no oscillator of its own)
/// by toggling its line at the tone's frequency from a dedicated thread.
///
/// Why a thread: a 2-4 kHz tone needs a toggle every 125-250 µs, far finer than the event loop's
/// deadlines, and the loop must never block or spin for it. The thread sleeps to absolute
/// CLOCK_MONOTONIC deadlines (`clock_nanosleep(TIMER_ABSTIME)`), so the period does not drift
/// with the time each write takes, and it waits on a condition variable while silent: no busy loop.
/// If the thread falls behind by more than half a period (it was descheduled) it starts again
/// from now rather than emitting a burst of catch-up toggles.
///
/// `play` returns at once; the thread takes up a change at its next toggle, within half a period.
/// `stop` joins the thread and leaves the line low. Failures of the line write cannot be thrown
/// from the thread: the tone stops, the line is driven low if it can be, and `failure` shows the
/// error until a toggle works again (the next `play` tries). It is the line's state, not a
/// message read once: when `play` cleared it, a broken line showed as failing at each burst's
/// end and working at the next one's start, and the face fault flapped with the bursts.
public final class ToneGenerator {
    /// Drives the buzzer line high (true) or low. Called only from the tone thread while it runs,
    /// and from `stop` after it has been joined.
    public typealias SetLevel = @Sendable (Bool) throws(GPIOError) -> Void

    /// The frequencies `play` accepts: what a person can hear (piezo buzzers resonate at 2-4 kHz).
    public static let audibleHertz = 20...20_000

    private let shared: ToneShared
    private var thread: pthread_t?
    /// Kept so the output lives (and stays requested) as long as the generator.
    private let output: GPIOOutput?

    /// A generator over any level writer (the tests count toggles with a closure).
    public init(setLevel: @escaping SetLevel) {
        shared = ToneShared(setLevel: setLevel)
        output = nil
    }

    /// A generator that owns `output` (requested off, active-high, for a buzzer through a
    /// transistor). The generator is the output's only user from now on.
    public convenience init(output: GPIOOutput) {
        let owned = OwnedOutput(output: output)
        self.init(setLevel: { (on: Bool) throws(GPIOError) in try owned.output.set(on) }, keeping: output)
    }

    private init(setLevel: @escaping SetLevel, keeping output: GPIOOutput) {
        shared = ToneShared(setLevel: setLevel)
        self.output = output
    }

    deinit { stop() }

    /// The error of the last toggle that failed, until one works again.
    public var failure: GPIOError? { shared.withLock { shared.failure } }

    /// Sounds `hertz` (nil: silent, line low). Starts the thread the first time. A line that
    /// failed is tried again: one glitch must not silence the next burst.
    /// Throws for a frequency outside `audibleHertz` and when the thread cannot be created;
    /// a failed line write shows in `failure`.
    public func play(hertz: Int?) throws(GPIOError) {
        if let hertz, !Self.audibleHertz.contains(hertz) {
            throw .invalidArgument(operation: "ToneGenerator.play(hertz: \(hertz))",
                                   reason: "a tone must be within \(Self.audibleHertz.lowerBound)...\(Self.audibleHertz.upperBound) Hz")
        }
        shared.withLock {
            shared.requestedHertz = hertz
            shared.signal()
        }
        if hertz != nil && thread == nil { try startThread() }
    }

    /// Stops the thread (waiting at most half a period for it) and leaves the line low.
    /// Idempotent; `play` afterwards starts a new thread.
    public func stop() {
        guard let running = thread else { return }
        shared.withLock {
            shared.requestedHertz = nil
            shared.exiting = true
            shared.signal()
        }
        pthread_join(running, nil)
        thread = nil
        shared.withLock { shared.exiting = false }
    }

    private func startThread() throws(GPIOError) {
        let context = Unmanaged.passRetained(shared).toOpaque()
        switch createSignalFreeThread(toneThreadMain, context) {
        case .success(let created):
            thread = created
        case .failure(let error):
            Unmanaged<ToneShared>.fromOpaque(context).release()
            shared.withLock { shared.requestedHertz = nil }
            throw .system(operation: "pthread_create(tone generator)", errno: error.code)
        }
    }
}

/// What the caller and the tone thread share, guarded by `mutex`.
/// @unchecked Sendable: every mutable field is read and written only under the mutex, and
/// `setLevel` is called only by the tone thread, or by nobody while it is being joined.
final class ToneShared: @unchecked Sendable {
    let setLevel: ToneGenerator.SetLevel
    var requestedHertz: Int?
    var exiting = false
    var failure: GPIOError?

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init(setLevel: @escaping ToneGenerator.SetLevel) {
        self.setLevel = setLevel
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        changed.deallocate()
    }

    func withLock<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Wakes the thread if it is waiting in silence. Call with the mutex held.
    func signal() { pthread_cond_signal(changed) }

    /// The tone thread's loop.
    func run() {
        var level = false
        var playing: Int?
        var deadline: Int64 = 0
        pthread_mutex_lock(mutex)
        while !exiting {
            guard let hertz = requestedHertz else {
                playing = nil
                if level {
                    pthread_mutex_unlock(mutex)
                    let error = write(false)
                    pthread_mutex_lock(mutex)
                    level = false
                    if let error { failure = error }
                    continue
                }
                pthread_cond_wait(changed, mutex)
                continue
            }
            pthread_mutex_unlock(mutex)

            let halfPeriod = 500_000_000 / Int64(hertz)
            let now = monotonicNanoseconds()
            if playing != hertz || deadline + halfPeriod < now {
                playing = hertz
                deadline = now
            }
            deadline += halfPeriod
            sleep(until: deadline)
            level.toggle()
            let error = write(level)

            pthread_mutex_lock(mutex)
            if let error {
                failure = error
                requestedHertz = nil
                level = true  // unknown: make the silent branch try to drive it low
            } else {
                // Only a toggle clears it: the silent branch's low write working says
                // nothing about a line that cannot sound.
                failure = nil
            }
        }
        pthread_mutex_unlock(mutex)
        // Whatever happened, the buzzer ends silent.
        if let error = write(false) { withLock { failure = error } }
    }

    private func write(_ level: Bool) -> GPIOError? {
        do throws(GPIOError) {
            try setLevel(level)
            return nil
        } catch {
            return error
        }
    }

    private func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        _ = clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    private func sleep(until nanoseconds: Int64) {
        var target = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        // Absolute deadlines: an EINTR restart sleeps to the same instant, not for the full span again.
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
    }
}

/// The tone thread's entry point: takes the reference `startThread` retained.
private func toneThreadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let shared = Unmanaged<ToneShared>.fromOpaque(context).takeRetainedValue()
    // Named for `top -H` and for the test that checks its signal mask. Cosmetic: a failure is ignored.
    _ = vigil_name_this_thread("vigil-tone")
    shared.run()
    return nil
}

/// Lets the tone thread's closure hold the output. @unchecked Sendable: the generator owns the
/// output and only the tone thread writes it (see `ToneGenerator.SetLevel`).
private final class OwnedOutput: @unchecked Sendable {
    let output: GPIOOutput
    init(output: GPIOOutput) { self.output = output }
}
