import Alarms
import Clocks
import Platform

/// The face fault: the buzzer, LED or button that cannot be driven is an alarm of its own,
/// shown by whatever still works (the other line, the log, `vigil status`, systemd's status
/// line), and face hardware that is missing or failing is opened again rather than given up
/// on.
extension ApplianceSession {
    /// How often hardware that is missing or failing is opened again: a chip whose
    /// permissions udev has not set yet at boot, or a chip that went away and came back, is
    /// found within a minute, and a failed attempt logs a line.
    static let faceRetryInterval: Duration = .seconds(60)

    /// The face is hardware (`[face] backend = "gpio"`) that `open` opens, again if need be;
    /// `device` is what opened at start, nil if it could not be (FaceDevices logged why): the
    /// fault is raised at the next turn and `open` tried again every `faceRetryInterval`.
    mutating func faceIsHardware(opened device: (any FaceDevice)?, reopen open: @escaping () -> (any FaceDevice)?,
                                 at now: MonotonicInstant) {
        self.device = device
        faceOpener = open
        nextFaceOpen = device == nil ? now + Self.faceRetryInterval : nil
    }

    /// What is wrong with the face now, nil when nothing is.
    var faceFailure: String? {
        if let device { return device.failure }
        return faceOpener == nil ? nil : "the face hardware could not be opened (the reason is logged above)"
    }

    /// When the session must look at the face: a failure (or a recovery) the alarms have not
    /// heard yet, found by the last write to a line, or a reopening due. The first is due
    /// already, and said as a fixed instant (`.zero`): a fresh reading of the clock is always
    /// later than the runner's `now`, so it never came due, and the loop polled with a zero
    /// timeout, at full CPU, until some other deadline ran the check.
    var nextFaceCheck: MonotonicInstant? {
        guard face != nil else { return nil }
        if faceFailure != faceFailureReported { return .zero }
        return nextFaceOpen
    }

    /// Tells the alarms when the face's failure changed, and opens failing or missing
    /// hardware again once it has failed for `faceRetryInterval`. The old device is closed
    /// first (its lines must be free to be requested again): a line that fails to write is
    /// no use, and a chip that went away is a new chip when it comes back.
    mutating func checkFace(at now: MonotonicInstant) {
        guard face != nil else { return }
        if let open = faceOpener, let due = nextFaceOpen, now >= due {
            nextFaceOpen = nil
            if let old = device {
                logger.log(.notice, "face: opening \(old.name) again")
                old.close()
                device = nil
            }
            if let opened = open() {
                device = opened
                logger.log(.notice, "face: \(opened.name) opened")
                restoreLines(on: opened, at: now)
            }
        }
        let failure = faceFailure
        if faceOpener != nil, failure != nil, nextFaceOpen == nil {
            nextFaceOpen = now + Self.faceRetryInterval
        } else if failure == nil {
            nextFaceOpen = nil
        }
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

    /// New lines start low, but the face's sequencers change a line only on a transition:
    /// an LED held on, or a buzzer held low, would never be written, and a line that can be
    /// requested but not written (a GPIO expander gone bad) would pass for working. So the
    /// lines are set to what the face has them at, at once: that shows what must be shown,
    /// and a write that fails keeps the fault raised.
    private func restoreLines(on device: any FaceDevice, at now: MonotonicInstant) {
        guard let lines = face?.face else { return }
        device.apply(.led(lines.ledLine), at: now)
        switch (lines.buzzerLine, lines.drive, lines.pattern.buzzer) {
        case (.low, _, _):
            device.apply(.buzzer(.low, toneHertz: nil), at: now)
        case (.high, .active, _):
            device.apply(.buzzer(.high, toneHertz: nil), at: now)
        case let (.high, .passive, .bursts(priority, _, _)):
            device.apply(.buzzer(.high, toneHertz: BuzzerRhythm.toneHertz(for: priority)), at: now)
        case (.high, .passive, _):
            // A self-test's tone: its next step writes the line within a moment.
            break
        }
    }
}
