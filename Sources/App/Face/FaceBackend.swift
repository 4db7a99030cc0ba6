import Alarms
import Clocks

/// Where the face's outputs go: the GPIO lines, the terminal drawing of `vigil demo`, or memory.
/// Kept to one call so every backend is easy to write and to fake;
/// a backend draws what it can (a GPIO backend ignores `.gesture`, the console prints it).
///
/// `at` is the instant the output is due on the monotonic clock (the scheduled edge, which is
/// the loop's `now` when it wakes on time).
public protocol FaceBackend {
    func apply(_ output: FaceOutput, at: MonotonicInstant)
}

/// The in-memory backend for tests and the latency benchmark: it records every output with
/// its instant and does nothing else.
public final class MemoryFaceBackend: FaceBackend {
    public private(set) var applied: [TimedFaceOutput] = []

    public init() {}

    public func apply(_ output: FaceOutput, at: MonotonicInstant) {
        applied.append(TimedFaceOutput(output, at: at))
    }

    /// Forgets what was recorded (the benchmark empties it between crossings).
    public func removeAll() { applied.removeAll(keepingCapacity: true) }
}
