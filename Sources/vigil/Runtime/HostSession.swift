import Clocks
import Host

/// What a command does with a running host: `scan`, `gatt`, `run` and `demo` each implement it.
/// Sessions are sans-IO: they see host events and call host methods; the runner does the I/O.
protocol HostSession {
    /// The controller is ready (called again after every controller restart).
    mutating func controllerReady(host: inout Host, at now: MonotonicInstant)
    mutating func handle(_ event: Host.Event, host: inout Host, at now: MonotonicInstant)
    mutating func handleDeadline(host: inout Host, at now: MonotonicInstant)
    var nextDeadline: MonotonicInstant? { get }
    /// Done: the runner stops and exits with `exitCode`.
    var isFinished: Bool { get }
    var exitCode: Int32 { get }
    /// More descriptors for the one poll(2): the button's GPIO edge events, the console's
    /// keyboard. Read again every turn, so a session may add or drop them as it goes.
    var descriptors: [Int32] { get }
    /// One of `descriptors` is readable (or hung up): the session reads it itself.
    mutating func readable(_ descriptor: Int32, host: inout Host, at now: MonotonicInstant)
    /// Descriptors with bytes queued for them: poll(2) wakes the loop when they take more
    /// (POLLOUT), so a full tty or socket is waited on, never polled on a timer. Only while
    /// something is queued: a writable descriptor would wake the loop at once, every turn.
    var writeInterest: [Int32] { get }
    /// One of `writeInterest` can take more bytes (or hung up): the session writes itself.
    mutating func writable(_ descriptor: Int32, host: inout Host, at now: MonotonicInstant)
    /// The turn's work is done and the loop is about to sleep: the place for work batched per
    /// turn (the history's one transaction). `wallNow` was read with `now`: sessions read no clock.
    mutating func endOfTurn(at now: MonotonicInstant, wallNow: WallClockTime)
    /// The runner saved the host's changed bonds, or failed to (and tries again later).
    mutating func bondsSaved(_ succeeded: Bool, at now: MonotonicInstant, wallNow: WallClockTime)
    /// The input ended (a replay's last record) and the run stops there.
    mutating func inputEnded(at now: MonotonicInstant)
}

extension HostSession {
    var descriptors: [Int32] { [] }
    mutating func readable(_ descriptor: Int32, host: inout Host, at now: MonotonicInstant) {}
    var writeInterest: [Int32] { [] }
    mutating func writable(_ descriptor: Int32, host: inout Host, at now: MonotonicInstant) {}
    mutating func endOfTurn(at now: MonotonicInstant, wallNow: WallClockTime) {}
    mutating func bondsSaved(_ succeeded: Bool, at now: MonotonicInstant, wallNow: WallClockTime) {}
    mutating func inputEnded(at now: MonotonicInstant) {}
}
