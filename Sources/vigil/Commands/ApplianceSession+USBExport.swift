import Alarms
import App
import Platform

/// The button's double press: the bundle (CSV, Nightscout JSON, the report) onto the stick,
/// written whole or not at all, on a thread of its own (`BackgroundJob`) with its own
/// read-only connection to the history. A year of glucose and 30 days of 1 Hz heart rate is
/// millions of rows: written in place, the loop would evaluate no alarm and feed no systemd
/// watchdog until the stick was done, and `WatchdogSec` would end Vigil mid-export. The loop
/// hears the job end through its descriptor; the result is said in the log, on the status
/// line and with sound and light.
extension ApplianceSession {
    mutating func exportToUSB() {
        guard let mountPoint = usbMountPoint else {
            logger.log(.notice, "button: double press, but no [export] usb mount point is configured")
            return
        }
        guard let history else {
            logger.log(.error, "button: double press, but the history is not open: nothing to export")
            return
        }
        guard usbExportJob == nil else {
            logger.log(.notice, "button: double press, but a bundle is being written to \(mountPoint) already")
            return
        }
        let bundle = USBBundle(now: SystemClock.wallNow(), utcOffset: utcOffset)
        let path = history.path
        do {
            usbExportJob = try BackgroundJob(name: "vigil-usb-export") { stopRequested in
                USBExport.write(bundle, to: mountPoint, historyAt: path, stopRequested: stopRequested)
            }
        } catch {
            answerUSBExport(.failed(reason: "\(error)"))
            return
        }
        logger.log(.notice, "USB export: writing a bundle to \(mountPoint)")
        device?.show(status: "USB export: writing to \(mountPoint)")
        lastStatus = ""
    }

    /// Said with sound and light too: one beep and blink when the bundle is on the stick,
    /// three when it is not (the low and medium test bursts). An alarm sounding wins.
    mutating func answerUSBExport(_ result: USBExport.Result) {
        logger.log(result.succeeded ? .notice : .error, "USB export: \(result)")
        let answer = AlarmTestPattern.all.first { $0.priority == (result.succeeded ? .low : .medium) && !$0.escalated }
        let t = at(SystemClock.monotonicNow())
        if let answer { face?.playTest(answer, at: t) }
        device?.show(status: result.succeeded ? "USB export done: \(result)" : "USB export FAILED: \(result)")
        lastStatus = ""
    }

    /// At exit: a bundle still being written stops at its next page and leaves no partial folder.
    func stopUSBExport() {
        guard let job = usbExportJob else { return }
        job.requestStop()
        if let result = job.finish() { logger.log(.notice, "USB export: \(result)") }
    }
}
