import Alarms
import App
import Clocks
import Platform

/// A broken configuration never starts a half-configured appliance, and never fails silently
/// either: `vigil run` logs every problem with its line, then sounds the configuration fault on
/// whatever face it can find until someone fixes the file and restarts it (or `--seconds`
/// passes). A long press acknowledges, as for any alarm.
///
/// The face comes from the file's `[face]` section when that section alone is valid (the
/// buzzer is wired where the person said, even if a device section is wrong), else from the
/// defaults (the Pi boards' pins). With no face at all, there is nothing to sound: exit at once.
enum ConfigurationFault {
    static let exitCode: Int32 = 78

    static func sound(configurationText text: String?, logger: Logger, stopAfter seconds: Double?) -> Int32 {
        let setup = faceSetup(from: text, logger: logger)
        guard let device = FaceDevices.open(setup, logger: logger) else {
            logger.log(.error, "no buzzer or LED to show the configuration fault on: exiting")
            return exitCode
        }
        defer { device.close() }
        let start = SystemClock.monotonicNow()
        let stopAt = seconds.map { start + .milliseconds(Int64($0 * 1000)) }
        var face = ApplianceFace(alarms: AlarmEngine(configuration: AlarmConfiguration(), now: start),
                                 drive: setup.sequencerDrive, actions: setup.buttonActions, at: start)
        face.receive(.faultRaised(.configurationProblem), at: start)
        device.say("ALARM fault:configuration-problem: the configuration has errors (above); sounding until it is fixed and Vigil restarted")
        device.show(status: FaceStatus.line(for: face.alarms.engine.activeAlarms, at: start))

        var loop = FaceDeviceLoop(device: device)
        defer { loop.close() }
        var status = ""
        while true {
            let now = SystemClock.monotonicNow()
            face.handleDeadline(at: now)
            for output in face.flush(to: device) { logger.log(.notice, "button: \(output)") }
            let line = FaceStatus.line(for: face.alarms.engine.activeAlarms, at: now)
            if line != status {
                status = line
                device.show(status: line)
            }
            if let stopAt, now >= stopAt { return exitCode }
            let wake: FaceDeviceLoop.Wake
            do throws(PlatformError) {
                wake = try loop.wait(until: earliest(face.nextDeadline, stopAt))
            } catch {
                logger.log(.error, "poll failed: \(error)")
                return exitCode
            }
            if let signal = wake.signal {
                logger.log(.notice, "received \(signal); stopping")
                return exitCode
            }
            for edge in wake.edges { face.receive(edge.edge, at: max(edge.at, wake.woke)) }
        }
    }

    /// `[face]` alone, when it parses and resolves; else the defaults.
    static func faceSetup(from text: String?, logger: Logger) -> FaceSetup {
        if let text, let section = faceSection(of: text),
           let config = try? VigilConfiguration(parsing: section, knownDeviceTypes: []),
           let setup = try? config.face.setup() {
            return setup
        }
        logger.log(.warning, "the configuration's [face] section is missing or broken too: using the default face")
        // The default face is valid by construction (tests resolve it).
        return (try? VigilConfiguration.Face().setup()) ?? FaceSetup(backend: .none)
    }

    /// The lines of the `[face]` table, up to the next table header.
    static func faceSection(of text: String) -> String? {
        var lines: [Substring] = []
        var inside = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("[") {
                inside = trimmed.hasPrefix("[face]")
                if !inside, !lines.isEmpty { break }
            }
            if inside { lines.append(line) }
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n") + "\n"
    }
}
