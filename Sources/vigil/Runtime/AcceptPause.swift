import Clocks
import Platform

/// A listener that rests after a failed accept (EMFILE, ENFILE, ENOMEM): the connection stays
/// queued, so poll would say readable again at once and the loop would spin at full speed, a
/// log line a turn, for as long as the shortage lasts. The failure is said at most once a
/// minute, with how many there were, and the recovery once.
struct AcceptPause {
    /// The log lines' prefix: "status", "web".
    let what: String
    /// While set, the listener is not watched.
    private(set) var until: MonotonicInstant?
    private var isFailing = false
    private var failuresNotSaid = 0
    private var saidAt: MonotonicInstant?
    static let pause = Duration.seconds(1)
    static let logInterval = Duration.seconds(60)

    init(what: String) { self.what = what }

    var isResting: Bool { until != nil }

    /// Watches the listener again once the pause is over.
    mutating func wake(at now: MonotonicInstant) {
        if let until, now >= until { self.until = nil }
    }

    mutating func failed(_ error: PlatformError, at now: MonotonicInstant, logger: Logger) {
        until = now + Self.pause
        isFailing = true
        failuresNotSaid += 1
        guard saidAt.map({ now - $0 >= Self.logInterval }) ?? true else { return }
        logger.log(.warning, "\(what): \(error); the listener rests \(Self.pause) after each failure"
            + (failuresNotSaid > 1 ? " (\(failuresNotSaid) failed accepts since the last line)" : ""))
        saidAt = now
        failuresNotSaid = 0
    }

    mutating func succeeded(logger: Logger) {
        guard isFailing else { return }
        logger.log(.notice, "\(what): accepting again" + (failuresNotSaid > 0 ? " (after \(failuresNotSaid) more failed accepts)" : ""))
        isFailing = false
        failuresNotSaid = 0
    }
}
