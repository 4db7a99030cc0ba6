import Host
import Platform

/// Log lines on stderr. Under systemd (stderr not a terminal) each line starts with its
/// syslog priority `<N>`, which journald turns into the entry's level; on a terminal, a
/// readable level word instead. No colour either way.
final class Logger {
    let minimum: Host.LogLevel
    let forJournal: Bool
    /// For the appliance (`writeOnItsOwnThread`): lines go through a bounded queue to a
    /// thread of their own, so a stalled journal cannot hold the event loop.
    private var queue: QueuedLineWriter?

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
        // syslog priorities: 3 err, 4 warning, 5 notice, 6 info, 7 debug.
        let line = forJournal ? "<\([7, 6, 5, 4, 3][level.rawValue])>\(message)" : "\(level): \(message)"
        if let queue { queue.write(line) } else { StandardError.write(line) }
    }

    /// From here on lines are written on a thread of their own (`QueuedLineWriter`): under
    /// systemd stderr is journald's socket, and a journald that stalls would otherwise stop
    /// the alarms at the next log line. What does not fit is dropped and counted in the log.
    func writeOnItsOwnThread() {
        let forJournal = forJournal
        do {
            queue = try QueuedLineWriter(fileDescriptor: 2) { count in
                let text = "\(count) log lines were dropped: standard error was not taking them (a stalled journal?)"
                return forJournal ? "<4>" + text : "warning: " + text
            }
        } catch {
            log(.warning, "\(error); log lines are written in place, where a stalled journal would hold the event loop")
        }
    }

    /// Writes what is queued and goes back to writing in place; at exit, so the last lines
    /// (why Vigil stopped) are not lost. The queue's end waits at most 2 s: the journal may be
    /// what stalled, and nothing can be said about that where it would be read.
    func finish() {
        queue = nil
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
