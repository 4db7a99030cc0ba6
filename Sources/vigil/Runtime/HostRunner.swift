import Clocks
import HCI
import Host
import Platform
import SMP

/// The one event loop: poll(2) over the HCI link and the signal fd, sleeping until the next
/// deadline of the host or the session, feeding every packet and deadline to the sans-IO core
/// and carrying out what it returns.
///
/// A controller that vanishes (EOF, ENODEV) or stops answering is reported, closed and
/// reopened with backoff — never waited on forever — unless the command is one-shot. A TCP
/// controller is connected on a thread of its own (`TCPConnection.Attempt`): a connect can
/// take its whole timeout, at every reopening, and the alarms must not wait for it.
final class HostRunner {
    struct Options {
        var reopenOnFailure: Bool
        var stopAt: MonotonicInstant?
        var snoopPath: String?
        /// For a replay, stop at the end of the capture.
        var stopAtEndOfInput: Bool
        /// How long bonds that could not be saved wait to be saved again (shorter only in tests).
        var bondsRetryInterval = HostRunner.bondsRetryInterval
    }

    private let openLink: () throws(PlatformError) -> LinkOpening
    private let logger: Logger
    private var options: Options
    private var host: Host
    private var link: (any HCILink)?
    /// A controller being connected to: its attempt's descriptor wakes the loop when it ends.
    private var connecting: (attempt: TCPConnection.Attempt, name: String)?
    private var snoop: SnoopTap?
    private var poll = PollLoop()
    private var signals: SignalWatcher?
    private var reopenAt: MonotonicInstant?
    private var reopenDelay: Duration = .seconds(1)
    private var finishedInput = false
    /// The session's own descriptors and what each is watched for, registered with `poll` as
    /// they come and go.
    private var sessionInterest: [SessionInterest] = []
    /// A failed open, told to the session at the top of the next turn (`connect` has no session).
    private var pendingOpenFailure: String?
    private(set) var lastFailure: String?
    /// Saves the bonds; false when it could not (said in the log by the saver).
    private let bondsChanged: (SMP.BondStore) -> Bool
    private var savedBonds: SMP.BondStore
    /// Bonds that could not be saved are saved again from here on (a failing card must not
    /// be written every turn), and a bond lost on restart means pairing again by hand.
    private var bondsRetryAt: MonotonicInstant?
    static let bondsRetryInterval = Duration.seconds(10)

    init(host: Host, logger: Logger, options: Options, bondsChanged: @escaping (SMP.BondStore) -> Bool, openLink: @escaping () throws(PlatformError) -> LinkOpening) {
        self.host = host
        self.logger = logger
        self.options = options
        self.openLink = openLink
        self.bondsChanged = bondsChanged
        self.savedBonds = host.bonds
    }

    /// Runs until the session finishes, a signal arrives, the time limit passes, or the link
    /// fails when reopening is off. Returns the exit status.
    func run<S: HostSession>(_ session: inout S) -> Int32 {
        do {
            signals = try SignalWatcher(signals: [.interrupt, .terminate, .hangUp])
            if let fd = signals?.fileDescriptor { poll.register(fd) }
        } catch {
            logger.log(.error, "\(error)")
            return 1
        }
        // A troubleshooting aid: one that cannot be written must not stop the appliance.
        if let path = options.snoopPath {
            do { snoop = try SnoopTap(path: path) } catch { logger.log(.error, "btsnoop log \(path): \(error); running without it") }
        }
        defer {
            link?.close()
            connecting?.attempt.cancel()
            snoop?.close()
        }
        if !connect(at: SystemClock.monotonicNow()) && !options.reopenOnFailure { return 1 }
        while true {
            var now = SystemClock.monotonicNow()
            host.wallClock = SystemClock.wallNow()
            if session.isFinished { drain(&session, at: now); return session.exitCode }
            if let stop = options.stopAt, now >= stop { return session.exitCode }
            if options.stopAtEndOfInput && finishedInput {
                // The last batch's events were drained as they came; the session's per-turn
                // work (the history's transaction) is not skipped for the last turn.
                drain(&session, at: now)
                session.endOfTurn(at: now, wallNow: host.wallClock)
                session.inputEnded(at: now)
                return session.exitCode
            }
            if let at = reopenAt, now >= at {
                reopenAt = nil
                if !connect(at: now) && !options.reopenOnFailure { return 1 }
            }
            if let reason = pendingOpenFailure {
                pendingOpenFailure = nil
                session.handle(.controllerFailed(reason), host: &host, at: now)
            }
            // Send what the last turn produced before sleeping: nothing may wait in the queue.
            drain(&session, at: now)
            session.endOfTurn(at: now, wallNow: host.wallClock)
            watchSessionDescriptors(read: session.descriptors, write: session.writeInterest)
            let deadline = earliest(host.nextDeadline, session.nextDeadline, options.stopAt, reopenAt, link?.nextDeadline, bondsRetryAt)
            let ready: [PollLoop.Event]
            do {
                // Input already waiting (a replay, the simulator) is read without sleeping, but
                // the poll still looks: a long replay must hear Ctrl-C and serve the session.
                ready = try poll.wait(until: link?.hasPendingInput == true ? now : deadline)
            } catch {
                logger.log(.error, "poll failed: \(error)")
                return 1
            }
            now = SystemClock.monotonicNow()
            host.wallClock = SystemClock.wallNow()
            for event in ready where event.fileDescriptor == signals?.fileDescriptor {
                if let signal = try? signals?.nextSignal() {
                    logger.log(.notice, "received \(signal); stopping")
                    session.handleDeadline(host: &host, at: now)
                    return session.exitCode == 0 ? 0 : session.exitCode
                }
            }
            if let attempt = connecting?.attempt, ready.contains(where: { $0.fileDescriptor == attempt.descriptor }) {
                if !finishConnecting(at: now) && !options.reopenOnFailure { return 1 }
            }
            for event in ready {
                guard let interest = sessionInterest.first(where: { $0.fileDescriptor == event.fileDescriptor }) else { continue }
                let trouble = event.isHangUp || event.isError || event.isInvalid
                if interest.read && (event.isReadable || trouble) {
                    session.readable(event.fileDescriptor, host: &host, at: now)
                }
                // A write-only descriptor that hung up is told through `writable`: its write fails.
                if interest.write && (event.isWritable || (trouble && !interest.read)) {
                    session.writable(event.fileDescriptor, host: &host, at: now)
                }
            }
            // Input found this turn may be only the first part of a backlog: until a turn finds
            // the link quiet, the host's timeouts wait (its answer may be in what follows).
            var inputWaiting = false
            if let link, link.hasPendingInput || ready.contains(where: { $0.fileDescriptor == link.fileDescriptor }) {
                inputWaiting = true
                readLink(link, session: &session, at: now)
            }
            if let d = link?.nextDeadline, now >= d { link?.handleDeadline(at: now); readLinkIfReady(session: &session, at: now) }
            host.handleDeadline(at: now, inputWaiting: inputWaiting)
            if let d = session.nextDeadline, now >= d { session.handleDeadline(host: &host, at: now) }
            drain(&session, at: now)
            if let failure = snoop?.failure {
                logger.log(.error, "btsnoop log stopped: \(failure)")
                snoop = nil
            }
            if lastFailure != nil, !options.reopenOnFailure { return 1 }
        }
    }

    private struct SessionInterest: Equatable {
        var fileDescriptor: Int32
        var read: Bool
        var write: Bool
    }

    private func watchSessionDescriptors(read: [Int32], write: [Int32]) {
        let wanted = read.map { SessionInterest(fileDescriptor: $0, read: true, write: write.contains($0)) }
            + write.filter { !read.contains($0) }.map { SessionInterest(fileDescriptor: $0, read: false, write: true) }
        guard wanted != sessionInterest else { return }
        // A descriptor the session closed may already be the controller's again (connect()
        // reopened it this turn and got the lowest free number): unregistering it would leave
        // the controller unpolled until its bring-up timed out.
        for old in sessionInterest where !wanted.contains(where: { $0.fileDescriptor == old.fileDescriptor })
            && old.fileDescriptor != link?.fileDescriptor && old.fileDescriptor != connecting?.attempt.descriptor {
            poll.unregister(old.fileDescriptor)
        }
        for interest in wanted where !sessionInterest.contains(interest) {
            poll.register(interest.fileDescriptor, readable: interest.read, writable: interest.write)
        }
        sessionInterest = wanted
    }

    private func readLinkIfReady<S: HostSession>(session: inout S, at now: MonotonicInstant) {
        if let link, link.hasPendingInput { readLink(link, session: &session, at: now) }
    }

    private func readLink<S: HostSession>(_ link: any HCILink, session: inout S, at now: MonotonicInstant) {
        do {
            guard let packets = try link.receive(at: now) else {
                if options.stopAtEndOfInput {
                    logger.log(.notice, "\(link.name): \(link.endOfInputDescription)")
                    finishedInput = true
                    return
                }
                return linkFailed("\(link.name): the controller went away (end of stream)", session: &session, at: now)
            }
            for packet in packets {
                snoop?.record(packet, direction: .received)
                host.receive(packet, at: now)
                drain(&session, at: now)
            }
        } catch {
            linkFailed("\(link.name): \(error)", session: &session, at: now)
        }
    }

    /// Opens the controller, or starts connecting to it; false when that failed at once.
    @discardableResult
    private func connect(at now: MonotonicInstant) -> Bool {
        do {
            switch try openLink() {
            case .opened(let opened):
                adopt(opened, at: now)
            case .connecting(let attempt, let name):
                connecting = (attempt, name)
                poll.register(attempt.descriptor)
                logger.log(.info, "connecting to \(name)")
            }
            return true
        } catch {
            openFailed(error, at: now)
            return false
        }
    }

    /// A connect that has ended: the link, or the failure an open would have had.
    private func finishConnecting(at now: MonotonicInstant) -> Bool {
        guard let pending = connecting else { return true }
        connecting = nil
        poll.unregister(pending.attempt.descriptor)
        do {
            adopt(TransportLink(try pending.attempt.finish(), name: pending.name), at: now)
            return true
        } catch {
            openFailed(error, at: now)
            return false
        }
    }

    private func adopt(_ opened: any HCILink, at now: MonotonicInstant) {
        link = opened
        if let fd = opened.fileDescriptor { poll.register(fd) }
        logger.log(.info, "opened \(opened.name)")
        reopenDelay = .seconds(1)
        lastFailure = nil
        host.start(at: now)
    }

    private func openFailed(_ error: PlatformError, at now: MonotonicInstant) {
        lastFailure = "\(error)"
        logger.log(.error, "cannot open the Bluetooth controller: \(error)")
        // The session hears it too: with no controller the appliance cannot hear a
        // transmitter, and that must sound (the no-controller fault), not only be logged.
        pendingOpenFailure = "\(error)"
        scheduleReopen(at: now)
    }

    private func linkFailed<S: HostSession>(_ reason: String, session: inout S, at now: MonotonicInstant) {
        logger.log(.error, reason)
        lastFailure = reason
        if let link {
            if let fd = link.fileDescriptor { poll.unregister(fd) }
            link.close()
        }
        link = nil
        host.controllerLost(reason, at: now)
        session.handle(.controllerFailed(reason), host: &host, at: now)
        scheduleReopen(at: now)
    }

    private func scheduleReopen(at now: MonotonicInstant) {
        guard options.reopenOnFailure else { return }
        reopenAt = now + reopenDelay
        logger.log(.notice, "reopening the controller in \(reopenDelay)")
        reopenDelay = min(reopenDelay * 2, .seconds(30))
    }

    /// Carries out the host's outputs until it has none: packets to the link, events to the
    /// session (which may call the host and produce more).
    private func drain<S: HostSession>(_ session: inout S, at now: MonotonicInstant) {
        while true {
            let outputs = host.takeOutputs()
            if outputs.isEmpty {
                if host.bonds == savedBonds, bondsRetryAt != nil {
                    // What could not be saved is gone again (a bond forgotten after a failed
                    // save): the file holds the bonds as they are, so nothing is left to retry,
                    // and a retry deadline left in the past would spin the loop for good.
                    bondsRetryAt = nil
                    session.bondsSaved(true, at: now, wallNow: host.wallClock)
                } else if host.bonds != savedBonds, bondsRetryAt.map({ now >= $0 }) ?? true {
                    let saved = bondsChanged(host.bonds)
                    if saved { savedBonds = host.bonds }
                    bondsRetryAt = saved ? nil : now + options.bondsRetryInterval
                    session.bondsSaved(saved, at: now, wallNow: host.wallClock)
                }
                return
            }
            // A send that fails ends the link, but only after the rest of this batch: the
            // events in it (a reading decoded just before) still reach the session, in order.
            var sendFailure: String?
            for output in outputs {
                switch output {
                case .send(let packet):
                    snoop?.record(packet, direction: .sent)
                    guard sendFailure == nil, let link else { continue }
                    do {
                        try link.send(packet, at: now)
                    } catch {
                        sendFailure = "\(link.name): \(error)"
                    }
                case .event(let event):
                    switch event {
                    case .log(let level, let message):
                        logger.log(level, message)
                    case .controllerReady:
                        session.handle(event, host: &host, at: now)
                        session.controllerReady(host: &host, at: now)
                    case .controllerFailed(let reason):
                        session.handle(event, host: &host, at: now)
                        if options.reopenOnFailure {
                            if let link {
                                if let fd = link.fileDescriptor { poll.unregister(fd) }
                                link.close()
                            }
                            link = nil
                            scheduleReopen(at: now)
                        } else {
                            lastFailure = reason
                        }
                    default:
                        session.handle(event, host: &host, at: now)
                    }
                }
            }
            if let sendFailure { linkFailed(sendFailure, session: &session, at: now) }
        }
    }
}
