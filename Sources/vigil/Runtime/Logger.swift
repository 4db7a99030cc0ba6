import Host
import Platform

/// Log lines on stderr. Under systemd (stderr not a terminal) each line starts with its
/// syslog priority `<N>`, which journald turns into the entry's level; on a terminal, a
/// readable level word instead. No colour either way.
final class Logger {
    let minimum: Host.LogLevel
    let forJournal: Bool

    init(minimum: Host.LogLevel) {
        self.minimum = minimum
        forJournal = !Terminal.isTerminal(fd: 2)
    }

    /// The message is built only when the line is written: a reading's text is formatted at
    /// info level for every notification, and at the usual notice level that work (and the
    /// string-formatting code it pulls into memory) is skipped.
    func log(_ level: Host.LogLevel, _ message: @autoclosure () -> String) {
        guard level >= minimum else { return }
        let message = message()
        if forJournal {
            // syslog priorities: 3 err, 4 warning, 5 notice, 6 info, 7 debug.
            let priority = [7, 6, 5, 4, 3][level.rawValue]
            StandardError.write("<\(priority)>\(message)")
        } else {
            StandardError.write("\(level): \(message)")
        }
    }

    static func level(named name: String) -> Host.LogLevel? {
        switch name.lowercased() {
        case "debug": .debug
        case "info": .info
        case "notice": .notice
        case "warning", "warn": .warning
        case "error": .error
        default: nil
        }
    }
}
