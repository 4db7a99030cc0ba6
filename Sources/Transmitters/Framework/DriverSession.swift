import Bluetooth
import Clocks

/// What every connected driver's session has in common, whatever its transmitter: where the
/// session is (not started, running, ending, over), the operations sent to the host and not yet
/// answered, the operations parked until the link is paired, the no-data watchdog and the
/// timeouts of the driver's own procedures. A driver keeps one and lets `SessionDriver` run it;
/// what the driver adds is its `Stage` (where its own procedure is) and its `Timer`s (what it
/// waits for, each with its deadline).
///
/// A value, like the driver: no clock reads, no I/O.
public struct DriverSession<Stage: Hashable & Sendable, Timer: Hashable & Comparable & Sendable>: Hashable, Sendable {
    /// Where the session is.
    public enum Phase: Hashable, Sendable {
        case notStarted
        /// The peer proved compatible; the driver's procedure is at `Stage`.
        case running(Stage)
        /// The driver asked to disconnect and waits for the host to report it.
        case disconnecting(reason: String)
        case disconnected(reason: String)
    }

    public private(set) var phase: Phase = .notStarted
    /// Requests sent to the host and not yet answered, oldest first, kept as they were asked
    /// for so that a refused one can be asked again after pairing.
    public private(set) var pending: [DriverAction] = []
    /// Requests refused for lack of encryption, asked again once the link is encrypted.
    public private(set) var parked: [DriverAction] = []
    /// Pairing was requested for the parked requests and has not finished.
    public private(set) var isAwaitingPairing = false
    /// The link was encrypted during this session: a refusal now is the peer's last word.
    public private(set) var encryptedThisSession = false
    /// "Nothing arrived for too long", for drivers that declare a no-data timeout.
    public private(set) var watchdog: NoDataWatchdog?
    /// The driver's procedure timeouts, by what they wait for.
    public private(set) var timers: [Timer: MonotonicInstant] = [:]
    /// While disconnecting: when the host is asked again to drop the link, for a session that
    /// declares `disconnectRetry`.
    public private(set) var disconnectDeadline: MonotonicInstant?
    /// How long to wait for the link to drop before asking the host again; nil: asked once.
    public let disconnectRetry: Duration?
    /// Whether a refusal that pairing cures parks the request and asks for pairing. False for a
    /// driver that bonds as a step of its own procedure (a Dexcom asks for it after its
    /// app-level authentication): such a refusal is then an ordinary one, the driver's to handle.
    public let pairsOnRefusal: Bool

    /// `noDataTimeout` arms a watchdog at every start; nil for a driver whose peer is silent by
    /// nature (a glucose meter between measurements).
    public init(noDataTimeout: Duration? = nil, disconnectRetry: Duration? = nil, pairsOnRefusal: Bool = true) {
        watchdog = noDataTimeout.map(NoDataWatchdog.init(timeout:))
        self.disconnectRetry = disconnectRetry
        self.pairsOnRefusal = pairsOnRefusal
    }

    /// The driver's stage while running, else nil.
    public var stage: Stage? {
        if case let .running(stage) = phase { stage } else { nil }
    }

    /// Running: inputs are the driver's to handle.
    public var isActive: Bool { stage != nil }

    /// The operations of `pending`, as the host names them in its answers.
    public var pendingOperations: [GATTOperation] { pending.compactMap(\.gattRequest) }

    /// The operations of `parked`.
    public var parkedOperations: [GATTOperation] { parked.compactMap(\.gattRequest) }

    /// The earliest of the watchdog's deadline and the timers', while running; while
    /// disconnecting, when the host is asked again.
    public var nextDeadline: MonotonicInstant? {
        guard isActive else { return disconnectDeadline }
        return earliest(timers.values.min(), watchdog?.deadline)
    }

    // MARK: - Lifecycle

    /// A new connection: everything of the last session is forgotten (one driver value serves
    /// every reconnection). `encrypted`: the host encrypted the link before the session began.
    mutating func restart(encrypted: Bool = false) {
        phase = .notStarted
        forgetOperations()
        encryptedThisSession = encrypted
    }

    /// The peer cannot serve the driver: say why and drop the link, without `connected` (the app
    /// remembers a transmitter's address on `connected`, and must not bind itself to a
    /// neighbour's kettle).
    mutating func refuse(because reason: String, at now: MonotonicInstant) -> [DriverAction] {
        phase = .disconnecting(reason: reason)
        forgetOperations()
        disconnectDeadline = disconnectRetry.map { now + $0 }
        return [.emit(.incompatible(reason: reason)), .disconnect(reason: reason)]
    }

    /// The peer is compatible: the session runs at `stage`, and the watchdog starts timing.
    mutating func run(_ stage: Stage, at now: MonotonicInstant) {
        phase = .running(stage)
        watchdog?.arm(at: now)
    }

    /// Moves a running session to `stage`; a session that is not running stays where it is.
    public mutating func enter(_ stage: Stage) {
        guard isActive else { return }
        phase = .running(stage)
    }

    /// Ends the session (a failure or a decision of the driver): ask the host to drop the link.
    public mutating func stop(reason: String) -> [DriverAction] {
        phase = .disconnecting(reason: reason)
        forgetOperations()
        return [.disconnect(reason: reason)]
    }

    /// `stop`, and with `disconnectRetry` the host is asked again until it reports the link
    /// down: a disconnect lost on the way must not leave the peer connected, unread.
    public mutating func stop(reason: String, at now: MonotonicInstant) -> [DriverAction] {
        let actions = stop(reason: reason)
        disconnectDeadline = disconnectRetry.map { now + $0 }
        return actions
    }

    /// Ends a session whose peer was asked to drop the link itself (a goodbye the driver
    /// writes): the host is asked only if the link is still up at `deadline`, then again every
    /// `disconnectRetry`.
    public mutating func leave(reason: String, askingHostAt deadline: MonotonicInstant) {
        phase = .disconnecting(reason: reason)
        forgetOperations()
        disconnectDeadline = deadline
    }

    /// Disconnecting and the deadline has passed: ask the host again, and set the next deadline.
    mutating func askAgainToDisconnect(at now: MonotonicInstant) -> [DriverAction] {
        guard case let .disconnecting(reason) = phase, let deadline = disconnectDeadline, now >= deadline else { return [] }
        disconnectDeadline = disconnectRetry.map { now + $0 }
        return [.disconnect(reason: reason)]
    }

    /// Whether a dropped link ends a session: not before any start, and not twice (a host that
    /// reports twice must not make the app hear it twice).
    public var hasSessionToEnd: Bool {
        switch phase {
        case .notStarted, .disconnected: false
        case .running, .disconnecting: true
        }
    }

    /// The link dropped: the session is over.
    mutating func linkDropped(reason: String) {
        phase = .disconnected(reason: reason)
        forgetOperations()
    }

    private mutating func forgetOperations() {
        pending = []
        parked = []
        isAwaitingPairing = false
        encryptedThisSession = false
        timers = [:]
        disconnectDeadline = nil
        watchdog?.disarm()
    }

    // MARK: - Operations

    /// Records the requests among `actions` as pending and hands `actions` back unchanged. A
    /// write without response is not pending: nothing on the air answers it.
    public mutating func track(_ actions: [DriverAction]) -> [DriverAction] {
        pending += actions.filter(\.awaitsAnswer)
        return actions
    }

    /// Forgets the requests still unanswered: their answers no longer matter (the driver is
    /// switching the peer off before it leaves).
    public mutating func abandonPending() { pending = [] }

    /// The host answered `operation`: the oldest pending request for it, which it settles.
    @discardableResult
    mutating func complete(_ operation: GATTOperation) -> DriverAction? {
        guard let index = pending.firstIndex(where: { $0.gattRequest == operation }) else { return nil }
        return pending.remove(at: index)
    }

    /// A request refused with a failure that pairing cures, on a link not yet encrypted this
    /// session, waits for pairing; the first one asks for it (README "Adding a transmitter
    /// type": park, ask once, re-issue on `encrypted`). Nil when the refusal is final: after
    /// encryption, a peer that still refuses would otherwise make us pair in a loop; and for a
    /// session that does not pair on refusal (`pairsOnRefusal`).
    mutating func park(_ request: DriverAction, refusedWith failure: OperationFailure) -> [DriverAction]? {
        guard pairsOnRefusal, failure.isCuredByPairing, !encryptedThisSession else { return nil }
        parked.append(request)
        guard !isAwaitingPairing else { return [] }  // pairing already requested
        isAwaitingPairing = true
        return [.emit(.needsPairing), .requestPairing]
    }

    /// The link is encrypted: the parked requests, to send again, or nil if pairing was not
    /// asked for by the session (the driver may have asked itself). The watchdog starts
    /// timing afresh: the pairing dialogue was not the peer's silence.
    mutating func paired(at now: MonotonicInstant) -> [DriverAction]? {
        encryptedThisSession = true
        guard isAwaitingPairing else { return nil }
        isAwaitingPairing = false
        watchdog?.arm(at: now)
        let retry = parked
        parked = []
        return track(retry)
    }

    /// Pairing failed: the parked requests, abandoned, or nil if pairing was not the session's.
    mutating func pairingFailed() -> [DriverAction]? {
        guard isAwaitingPairing else { return nil }
        isAwaitingPairing = false
        let abandoned = parked
        parked = []
        return abandoned
    }

    // MARK: - Watchdog

    /// Starts timing the silence afresh (a subscription confirmed: the data can flow now).
    public mutating func armWatchdog(at now: MonotonicInstant) { watchdog?.arm(at: now) }

    /// Stops timing the silence: the driver is ending the session itself.
    public mutating func disarmWatchdog() { watchdog?.disarm() }

    /// A reading arrived.
    public mutating func feedWatchdog(at now: MonotonicInstant) { watchdog?.feed(at: now) }

    /// When the silence began, and disarms the watchdog, if its deadline has passed.
    mutating func expireWatchdog(at now: MonotonicInstant) -> MonotonicInstant? {
        guard let since = watchdog?.since, watchdog?.expire(at: now) == true else { return nil }
        return since
    }

    // MARK: - Timers

    /// Sets (or moves) the deadline of `timer`.
    public mutating func schedule(_ timer: Timer, at deadline: MonotonicInstant) { timers[timer] = deadline }

    public mutating func cancel(_ timer: Timer) { timers[timer] = nil }

    public func deadline(of timer: Timer) -> MonotonicInstant? { timers[timer] }

    /// The timers due at `now`, removed, earliest first (ties in the order `Timer` declares).
    mutating func takeDueTimers(at now: MonotonicInstant) -> [Timer] {
        let due = timers.filter { $0.value <= now }.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map(\.key)
        for timer in due { timers[timer] = nil }
        return due
    }
}

extension DriverAction {
    /// The GATT operation this action asks the host for, as the host names it when answering.
    public var gattRequest: GATTOperation? {
        switch self {
        case let .read(uuid): .read(uuid)
        case let .write(uuid, _, _): .write(uuid)
        case let .subscribe(uuid, _): .subscribe(uuid)
        case .requestPairing, .disconnect, .nextSession, .emit: nil
        }
    }

    /// A request whose answer the driver waits for: a read, a subscription, a write with response.
    var awaitsAnswer: Bool {
        switch self {
        case .read, .subscribe, .write(_, _, withResponse: true): true
        default: false
        }
    }
}
