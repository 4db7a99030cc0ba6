import Clocks

/// A btsnoop replay (`Configuration.replay`): the capture plays the controller's part.
///
/// A capture's controller was brought up, or not, by another host before or while the capture
/// was taken; whatever answers it holds are to that host's commands. So on a replay the host
/// does not bring the controller up, sends nothing and waits for nothing: each command it would
/// send counts as answered with success at once (Command Complete or Command Status alike,
/// Core v5.4 Vol 4 Part E §7.7.14, §7.7.15), so the owner's state moves as with a live
/// controller (asking to scan makes the host scan), and no command deadline can fail the
/// controller. Everything else in the capture (advertising reports, connections, ACL data)
/// is handled as from a live controller.
extension Host {
    /// Ready at once, with the controller facts left at their defaults: a capture of a running
    /// adapter never says them, and nothing in a replay depends on them.
    mutating func startReplay(at now: MonotonicInstant) {
        log(.info, "replay: the capture plays the controller's part; nothing is sent to it")
        becomeReady(at: now)
        flush(at: now)
    }

    /// Answers every command waiting, in order, as a controller that accepts them all would.
    /// An answer may queue the next command (scan parameters, then scan enable); it is
    /// answered in the same loop.
    mutating func answerCommandsOnReplay(at now: MonotonicInstant) {
        while let (packet, purpose) = commands.takeWaiting() {
            log(.debug, "replay: \(packet.opcode) not sent, taken as answered")
            commandAnswered(purpose, status: .success, returnParameters: nil, at: now)
        }
    }
}
