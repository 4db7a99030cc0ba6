import Alarms
import App
import Clocks
import Readings
import Transmitters

/// The appliance's own state files. Each is read once at start: a file that is not there is a
/// first run; one that cannot be read or does not parse is set aside (`StateDirectory`) and the
/// run starts without it, with the storage fault sounding.
extension StateDirectory {
    /// Active alarms and snoozes survive a restart or a power cut: a snoozed alarm must not
    /// come back early, nor a raised one be forgotten.
    func loadAlarmState(at now: MonotonicInstant) -> AlarmEngine.State {
        let name = "alarm-state", lost = "alarms and snoozes start afresh"
        guard let text = text(of: name, lost: lost) else { return AlarmEngine.State() }
        do {
            return try AlarmEngine.State(text: text, at: now)
        } catch {
            setAside(name, because: "\(error)", lost: lost)
            return AlarmEngine.State()
        }
    }

    @discardableResult
    func saveAlarmState(_ state: AlarmEngine.State, at now: MonotonicInstant) -> Bool {
        save("alarm-state", state.text(at: now), what: "cannot save the alarm state")
    }

    /// The wall clock's unexplained shift an earlier run saw (`WallClockWatch.shiftText`);
    /// zero when none was saved.
    func loadClockShift() -> Duration {
        let name = "clock-shift", lost = "retention ages rows by the wall clock as it reads"
        guard let text = text(of: name, lost: lost) else { return .zero }
        guard let shift = WallClockWatch.shift(parsing: text) else {
            setAside(name, because: "not a whole number of seconds", lost: lost)
            return .zero
        }
        return shift
    }

    @discardableResult
    func saveClockShift(_ watch: WallClockWatch) -> Bool {
        save("clock-shift", watch.shiftText, what: "cannot save the clock's shift")
    }

    /// Drivers' state between runs: one `device<TAB>key<TAB>value` line each (names may hold
    /// spaces). A file with a line that is not that is set aside whole; the good lines are
    /// kept and saved again at once, so a restart still finds them.
    func loadDriverStates() -> [DeviceID: [String: String]] {
        let name = "driver-state", lost = "transmitters' saved state (sensor sessions, calibrations) starts afresh"
        guard let text = text(of: name, lost: lost) else { return [:] }
        var states: [DeviceID: [String: String]] = [:]
        var bad: [String] = []
        for (number, line) in text.split(separator: "\n").enumerated() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3 else {
                bad.append("line \(number + 1): expected device, key and value separated by tabs")
                continue
            }
            states[DeviceID(String(fields[0])), default: [:]][String(fields[1])] = String(fields[2])
        }
        if !bad.isEmpty {
            setAside(name, because: bad.joined(separator: "; "), lost: "the lines that parse are kept; the others are lost")
            if !states.isEmpty { saveDriverStates(states) }
        }
        return states
    }

    @discardableResult
    func saveDriverStates(_ states: [DeviceID: [String: String]]) -> Bool {
        var text = ""
        for (device, values) in states.sorted(by: { $0.key < $1.key }) {
            for (key, value) in values.sorted(by: { $0.key < $1.key }) { text += "\(device.rawValue)\t\(key)\t\(value)\n" }
        }
        return save("driver-state", text, what: "cannot save transmitter state")
    }

    func loadRemembered() -> RememberedTransmitters {
        let name = "transmitters", lost = "transmitters will be searched for again"
        guard let text = text(of: name, lost: lost) else { return RememberedTransmitters() }
        do {
            return try RememberedTransmitters(parsing: text)
        } catch {
            setAside(name, because: "\(error)", lost: lost)
            return RememberedTransmitters()
        }
    }

    @discardableResult
    func saveRemembered(_ remembered: RememberedTransmitters) -> Bool {
        save("transmitters", remembered.serialized, what: "cannot save remembered transmitters")
    }
}
