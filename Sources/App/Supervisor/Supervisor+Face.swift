import Alarms
import Clocks

/// The face fault: the buzzer, LED or button that cannot be driven is an alarm of its own,
/// shown by whatever still works (the other line, the log, `vigil status`, systemd's status
/// line), and face hardware that is missing or failing is opened again rather than given up
/// on. And the double press's USB export, said with sound and light.
extension Supervisor {
    /// What is wrong with the face now, nil when nothing is.
    var faceFailure: String? {
        if faceDeviceOpen { return faceDeviceFailure }
        return configuration.faceIsHardware ? "the face hardware could not be opened (the reason is logged above)" : nil
    }

    /// Tells the alarms when the face's failure changed, and opens failing or missing hardware
    /// again once it has failed for `faceRetryInterval`: a line that fails to write is no use,
    /// and a chip that went away is a new chip when it comes back.
    mutating func checkFace(at now: MonotonicInstant) {
        guard face != nil else { return }
        if configuration.faceIsHardware, let due = nextFaceOpen, now >= due {
            nextFaceOpen = nil
            actions.append(.reopenFaceDevice)  // answered with `faceDeviceReopened`
            return
        }
        let failure = faceFailure
        if configuration.faceIsHardware, failure != nil, nextFaceOpen == nil {
            nextFaceOpen = now + Self.faceRetryInterval
        } else if failure == nil {
            nextFaceOpen = nil
        }
        guard failure != faceFailureReported else { return }
        if let failure {
            log(.error, "face: \(failure); the face fault is raised")
        } else {
            log(.notice, "face: every line works; the face fault is cleared")
        }
        faceFailureReported = failure
        let t = at(now)
        face?.update(at: t) { $0.face(working: failure == nil, at: t) }
    }

    mutating func faceDeviceOpened(name: String?, at now: MonotonicInstant) {
        faceDeviceOpen = name != nil
        faceDeviceFailure = nil
        guard let name else { return }
        log(.notice, "face: \(name) opened")
        restoreLines(at: now)
    }

    /// New lines start low, but the face's sequencers change a line only on a transition: an
    /// LED held on, or a buzzer held low, would never be written, and a line that can be
    /// requested but not written (a GPIO expander gone bad) would pass for working. So the
    /// lines are set to what the face has them at, at once: that shows what must be shown, and
    /// a write that fails keeps the fault raised.
    private mutating func restoreLines(at now: MonotonicInstant) {
        guard let lines = face?.face else { return }
        actions.append(.face(.led(lines.ledLine), at: now))
        switch (lines.buzzerLine, lines.drive, lines.pattern.buzzer) {
        case (.low, _, _):
            actions.append(.face(.buzzer(.low, toneHertz: nil), at: now))
        case (.high, .active, _):
            actions.append(.face(.buzzer(.high, toneHertz: nil), at: now))
        case let (.high, .passive, .bursts(priority, _, _)):
            actions.append(.face(.buzzer(.high, toneHertz: BuzzerRhythm.toneHertz(for: priority)), at: now))
        case (.high, .passive, _):
            // A self-test's tone: its next step writes the line within a moment.
            break
        }
    }

    // MARK: The USB export

    /// The bundle (CSV, Nightscout JSON, the report) onto the stick, on a thread of its own:
    /// a year of glucose and 30 days of 1 Hz heart rate is millions of rows, and written in
    /// place the loop would evaluate no alarm and feed no watchdog until the stick was done.
    mutating func exportToUSB(at now: ClockReadings) {
        guard let mountPoint = configuration.usbMountPoint else {
            return log(.notice, "button: double press, but no [export] usb mount point is configured")
        }
        guard historyIsOpen else {
            return log(.error, "button: double press, but the history is not open: nothing to export")
        }
        guard !usbExportRunning else {
            return log(.notice, "button: double press, but a bundle is being written to \(mountPoint) already")
        }
        usbExportRunning = true
        actions.append(.startUSBExport(USBBundle(now: now.wall, utcOffset: configuration.utcOffset), mountPoint: mountPoint))
        log(.notice, "USB export: writing a bundle to \(mountPoint)")
        actions.append(.showStatus("USB export: writing to \(mountPoint)"))
        lastStatus = ""
    }

    /// Said with sound and light too: one beep and blink when the bundle is on the stick,
    /// three when it is not (the low and medium test bursts). An alarm sounding wins.
    mutating func usbExportEnded(succeeded: Bool, summary: String, at now: MonotonicInstant) {
        usbExportRunning = false
        if exiting { return log(.notice, "USB export: \(summary)") }
        log(succeeded ? .notice : .error, "USB export: \(summary)")
        let answer = AlarmTestPattern.all.first { $0.priority == (succeeded ? .low : .medium) && !$0.escalated }
        let t = at(now)
        if let answer { face?.playTest(answer, at: t) }
        actions.append(.showStatus(succeeded ? "USB export done: \(summary)" : "USB export FAILED: \(summary)"))
        lastStatus = ""
    }
}
