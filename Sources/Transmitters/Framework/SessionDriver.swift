import Bluetooth
import Clocks
import Readings
import Wire

/// A connected driver whose session skeleton is the framework's: it declares what is its own
/// (whether the peer can serve it, what to do once it is discovered, what a value means, what
/// its timers are for) and `SessionDriver` supplies `TransmitterDriver`'s `start`, `receive`,
/// `handleDeadline` and `nextDeadline` around them, the same for every driver:
///
/// - `start`: a fresh session; an incompatible peer gets `incompatible` and `disconnect`
///   without `connected`; a compatible one `connected`, then the driver's first requests.
/// - `disconnected` ends the session once (a second report, or one before any start, is
///   ignored), after `linkLost`; nothing else reaches a session that is not running, except
///   calibrations (`calibrate`), which belong to the sensor rather than the link, and pairing
///   failures (`pairingFailed`), whose default ignores them there.
/// - Every request the driver returns is tracked until the host answers it. A request refused
///   with "insufficient authentication/encryption" on a link not yet encrypted (a type whose
///   profile requires encryption starts encrypted) is parked, and
///   the first such refusal asks for pairing; `encrypted` sends the parked requests again (a
///   refusal after that is reported, not retried), `pairingFailed` abandons them.
/// - Any other refusal is reported (`operationFailed`); if the driver cannot do without the
///   operation (`essentialFailure`), the session ends.
/// - Timers fire earliest first, then the watchdog: `noData` and the end of the session.
/// - A session declaring `disconnectRetry` asks the host again to drop a link that stays up.
///
/// The hooks below are called by these implementations, never by the app.
public protocol SessionDriver: TransmitterDriver {
    associatedtype Stage: Hashable & Sendable
    /// What the driver's procedure timeouts wait for; `Never` for a driver without any.
    associatedtype Timer: Hashable & Comparable & Sendable = Never

    var session: DriverSession<Stage, Timer> { get set }

    /// Why `discovered` cannot serve this driver, or nil.
    func incompatibility(_ discovered: DiscoveredServices) -> String?
    /// The peer is compatible: the stage the session starts in and the first actions (after
    /// `connected`). Per-session state is reset here.
    mutating func begin(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> (Stage, [DriverAction])
    /// Values, completions and `encrypted` while the session runs. Completions of tracked
    /// requests are settled before this is called.
    mutating func handle(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction]
    /// `timer` is due; it is no longer scheduled.
    mutating func timerFired(_ timer: Timer, at now: MonotonicInstant) -> [DriverAction]
    /// A reference glucose, in any phase. Default: ignored.
    mutating func calibrate(_ reference: GlucoseConcentration, takenAt: MonotonicInstant, at now: MonotonicInstant) -> [DriverAction]
    /// After `operation` was refused and reported: the driver's own bookkeeping. Default: none.
    mutating func operationFailed(_ operation: GATTOperation, _ failure: OperationFailure, at now: MonotonicInstant) -> [DriverAction]
    /// Why the session cannot go on without `operation`, refused with `failure`, or nil if it
    /// can. Default: it can.
    func essentialFailure(_ operation: GATTOperation, _ failure: String) -> String?
    /// Why the session cannot go on without `operation`, abandoned because pairing failed.
    /// Default: `essentialFailure` with the pairing failure as the reason.
    func pairingRefusal(_ operation: GATTOperation, reason: String) -> String?
    /// Pairing failed, in any phase; `abandoned`: the parked requests given up. Default: while
    /// the session runs, `pairingFailed` is reported, and the session ends if one of the
    /// abandoned requests was essential (`pairingRefusal`). A driver that pairs as a step of its
    /// own procedure says itself what the failure means (a Dexcom's lost bond).
    mutating func pairingFailed(reason: String, abandoned: [GATTOperation], at now: MonotonicInstant) -> [DriverAction]
    /// What the silence the watchdog times is a silence of ("heart-rate measurement"): the
    /// reason reads "no \(silence) for N s".
    var silence: String { get }
    /// Ends the session for `reason`. Default: `session.stop`, after `sessionEnded`. A driver
    /// with something to undo on the peer first (a SensorTag's sensors) does that instead.
    mutating func end(reason: String, at now: MonotonicInstant) -> [DriverAction]
    /// Per-session state to drop when the session ends (stopped or link lost). Default: none.
    mutating func sessionEnded()
    /// The link dropped: what to emit before `disconnected` (a reading held back). Default: none.
    mutating func linkLost() -> [DriverAction]
}

extension SessionDriver {
    public var phase: DriverSession<Stage, Timer>.Phase { session.phase }
    /// Requests sent to the host and not yet answered, oldest first.
    public var pending: [GATTOperation] { session.pendingOperations }
    /// Requests refused for lack of encryption, waiting for pairing.
    public var parkedUntilEncrypted: [GATTOperation] { session.parkedOperations }
    public var nextDeadline: MonotonicInstant? { session.nextDeadline }

    public mutating func calibrate(_ reference: GlucoseConcentration, takenAt: MonotonicInstant, at now: MonotonicInstant) -> [DriverAction] { [] }
    public mutating func operationFailed(_ operation: GATTOperation, _ failure: OperationFailure, at now: MonotonicInstant) -> [DriverAction] { [] }
    public func essentialFailure(_ operation: GATTOperation, _ failure: String) -> String? { nil }
    public func pairingRefusal(_ operation: GATTOperation, reason: String) -> String? {
        essentialFailure(operation, "pairing failed: \(reason)")
    }
    public mutating func pairingFailed(reason: String, abandoned: [GATTOperation], at now: MonotonicInstant) -> [DriverAction] {
        guard session.isActive else { return [] }
        var actions: [DriverAction] = [.emit(.pairingFailed(reason: reason))]
        if let refusal = abandoned.compactMap({ pairingRefusal($0, reason: reason) }).first {
            actions += end(reason: refusal, at: now)
        }
        return actions
    }
    public var silence: String { "reading" }
    public mutating func end(reason: String, at now: MonotonicInstant) -> [DriverAction] {
        sessionEnded()
        return session.stop(reason: reason, at: now)
    }
    public mutating func sessionEnded() {}
    public mutating func linkLost() -> [DriverAction] { [] }

    public mutating func start(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> [DriverAction] {
        // A type that needs encryption is encrypted before it starts: a refusal for lack of it
        // is then final, and pairing again would not cure it.
        session.restart(encrypted: Self.profile.security == .encryptionRequired)
        sessionEnded()
        if let reason = incompatibility(discovered) { return session.refuse(because: reason, at: now) }
        let (stage, actions) = begin(discovered, at: now)
        session.run(stage, at: now)
        return [.emit(.connected)] + session.track(actions)
    }

    public mutating func receive(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        switch input {
        case let .disconnected(reason):
            return linkDropped(reason: reason)
        case let .calibration(reference, takenAt):
            return calibrate(reference, takenAt: takenAt, at: now)
        case let .pairingFailed(reason):
            let abandoned = session.pairingFailed() ?? []
            return session.track(pairingFailed(reason: reason, abandoned: abandoned.compactMap(\.gattRequest), at: now))
        default:
            break
        }
        guard session.isActive else { return [] }
        switch input {
        case let .value(uuid, _, .read):
            session.complete(.read(uuid))
        case let .subscribed(uuid):
            session.complete(.subscribe(uuid))
        case let .writeCompleted(uuid):
            session.complete(.write(uuid))
        case let .operationFailed(operation, failure):
            let request = session.complete(operation)
            if let request, let parking = session.park(request, refusedWith: failure) { return parking }
            return refused(operation, failure, at: now)
        case .encrypted:
            if let retry = session.paired(at: now) { return [.emit(.paired)] + retry }
        default:
            break
        }
        return session.track(handle(input, at: now))
    }

    public mutating func handleDeadline(at now: MonotonicInstant) -> [DriverAction] {
        guard session.isActive else { return session.askAgainToDisconnect(at: now) }
        var actions: [DriverAction] = []
        for timer in session.takeDueTimers(at: now) where session.isActive {
            actions += session.track(timerFired(timer, at: now))
        }
        if session.isActive, let since = session.expireWatchdog(at: now) {
            let reason = "no \(silence) for \(Int((now - since).seconds)) s"
            actions += [.emit(.noData(since: since, duration: now - since))] + end(reason: reason, at: now)
        }
        return actions
    }

    private mutating func linkDropped(reason: String) -> [DriverAction] {
        guard session.hasSessionToEnd else { return [] }
        let held = linkLost()
        session.linkDropped(reason: reason)
        sessionEnded()
        return held + [.emit(.disconnected(reason: reason))]
    }

    private mutating func refused(_ operation: GATTOperation, _ failure: OperationFailure, at now: MonotonicInstant) -> [DriverAction] {
        var actions: [DriverAction] = [.emit(.operationFailed(operation, failure))]
        actions += session.track(operationFailed(operation, failure, at: now))
        if let reason = essentialFailure(operation, "\(failure)") { actions += end(reason: reason, at: now) }
        return actions
    }
}

extension SessionDriver where Timer == Never {
    public mutating func timerFired(_ timer: Never, at now: MonotonicInstant) -> [DriverAction] {}
}

extension SessionDriver {
    /// A message that fits no step of the procedure where the session is: reported with its
    /// opcode, the stage and the bytes (a Dexcom's stray or late reply), never dropped silently.
    func unexpected(_ what: String, on uuid: BluetoothUUID, _ bytes: [UInt8]) -> DriverAction {
        let opcode = bytes.first.map { "0x" + String($0, radix: 16, uppercase: true) } ?? "(empty)"
        return .emit(.malformedValue(uuid, reason: "unexpected \(what) \(opcode) in \(session.stage.map { "\($0)" } ?? "no stage"): \(bytes.hexString)"))
    }
}
