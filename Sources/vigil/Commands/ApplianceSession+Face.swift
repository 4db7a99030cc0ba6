import Clocks
import Platform

/// The face fault: the buzzer, LED or button that cannot be driven is an alarm of its own,
/// shown by whatever still works (the other line, the log, `vigil status`, systemd's status
/// line), and face hardware missing at start is tried again rather than given up on.
extension ApplianceSession {
    /// How often hardware that could not be opened is tried again: a chip whose permissions
    /// udev has not set yet at boot is the common case, a minute is soon enough for it, and a
    /// failed attempt logs a line.
    static let faceRetryInterval: Duration = .seconds(60)

    /// The configured face hardware could not be opened (FaceDevices logged why): the fault
    /// is raised at the next turn and `open` is tried again every `faceRetryInterval`.
    mutating func faceDidNotOpen(retry open: @escaping () -> (any FaceDevice)?, at now: MonotonicInstant) {
        faceOpener = open
        nextFaceOpen = now + Self.faceRetryInterval
    }

    /// What is wrong with the face now, nil when nothing is.
    var faceFailure: String? {
        if let device { return device.failure }
        return faceOpener == nil ? nil : "the face hardware could not be opened (the reason is logged above)"
    }

    /// When the session must look at the face: a retry due, or a failure (or a recovery) the
    /// alarms have not heard yet, found by the last write to a line.
    var nextFaceCheck: MonotonicInstant? {
        guard face != nil else { return nil }
        if faceFailure != faceFailureReported { return SystemClock.monotonicNow() }
        return faceOpener == nil ? nil : nextFaceOpen
    }

    /// Tries the hardware again when due, then tells the alarms if the face's failure changed.
    mutating func checkFace(at now: MonotonicInstant) {
        guard face != nil else { return }
        if let open = faceOpener, nextFaceOpen.map({ now >= $0 }) ?? true {
            if let opened = open() {
                device = opened
                faceOpener = nil
                nextFaceOpen = nil
                logger.log(.notice, "face: \(opened.name) opened")
            } else {
                nextFaceOpen = now + Self.faceRetryInterval
            }
        }
        let failure = faceFailure
        guard failure != faceFailureReported else { return }
        if let failure {
            logger.log(.error, "face: \(failure); the face fault is raised")
        } else {
            logger.log(.notice, "face: every line works; the face fault is cleared")
        }
        faceFailureReported = failure
        let t = at(now)
        face?.update(at: t) { $0.face(working: failure == nil, at: t) }
    }
}
