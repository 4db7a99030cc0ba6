import Bluetooth
import Clocks
import Readings
import Wire

/// The session state machine for a Dexcom G5/G6 transmitter (profile in `DexcomProfile`,
/// messages in `Dexcom`; docs/dexcom.md).
///
/// The transmitter wakes every 5 minutes, advertises, and accepts one short session:
/// 1. Authenticate: write AuthRequestTx with a fresh token, read Authentication for the
///    AuthChallengeRx (an indication is accepted too), check its token hash (a mismatch is
///    "transmitter ID mismatch"), answer the challenge, read AuthStatusRx.
/// 2. Not bonded: KeepAlive, BondRequest, then `requestPairing` (LE Just Works). Bonded:
///    `requestPairing` too, which re-encrypts with the stored key (or returns at once if the
///    link already is encrypted), because Control answers only on an encrypted link.
/// 3. Subscribe to Control indications, then ask, one at a time, what the session is for:
///    transmitter time and glucose (0x30 for a G5 ID, 0x4E for a G6).
/// 4. If readings were missed (a gap since the last reading's dex time, or the first
///    session), request a backfill from the last reading (capped at `backfillHours`).
/// 5. Send a waiting fingerstick as a calibration (0x34), if the configuration asks for it.
/// 6. Then what is good to know but not needed: sensor raw, calibration data, battery, and the
///    firmware version on the first session only. A transmitter that leaves one of these
///    unanswered costs that answer, never the glucose or the backfill before it.
/// 7. Write Disconnect (0x09) so the transmitter keeps its cycle, and tell the app when the
///    next reading is due (`nextSession`): a transmitter that stays connectable is not read
///    again until then (docs/dexcom.md "Pacing").
///
/// The session skeleton (start, link loss, tracked requests, the step timer) is the framework's
/// (`SessionDriver`); what is Dexcom's own is the procedure above, as its `Stage`. Every step has
/// a deadline; a needed step that times out, a refused authentication, a lost bond or an
/// undecodable reply ends the session with an event saying why, and the next cycle tries again.
/// A request refused for lack of encryption is such a failure too, never a reason to pair:
/// bonding is step 2. A link that stays up after the session ended is asked again to drop
/// every `stepTimeout`. Undecodable or unusable values never become readings, and a reading
/// already delivered in an earlier session (the same dex time) is not delivered again.
///
/// Every reading carries its `SensorStamp`: the transmitter ID and the dex time it was
/// measured at, CGMBLEKit's own key for a Dexcom reading (`Glucose.syncIdentifier`).
///
/// With `listenOnly` the driver never writes a characteristic: it subscribes to
/// Authentication, Control and Backfill and decodes what another app's session produces
/// (CGMBLEKit passive mode).
public struct DexcomDriver: SessionDriver {
    public struct Configuration: Hashable, Sendable {
        public var transmitterID: Dexcom.TransmitterID
        /// How far back a backfill may reach (0 disables backfill; at most 24).
        public var backfillHours: Int
        public var listenOnly: Bool
        /// Deadline for each request/reply step.
        public var stepTimeout: Duration
        /// Deadline for bonding after the bond request (the keep-alive plus margin).
        public var bondTimeout: Duration
        /// Deadline for a backfill's frames and completion.
        public var backfillTimeout: Duration
        /// Listen-only: how long a link may carry no glucose before it is dropped.
        public var listenTimeout: Duration
        public var keepAliveSeconds: UInt8
        /// Which of the transmitter's two display slots to take. The default is the receiver's:
        /// a phone app uses the other, so both can stay paired (docs/dexcom.md "Slots").
        public var slot: Dexcom.Slot
        /// Send a meter's fingersticks to the transmitter as calibrations (0x34). Off unless
        /// asked for: a G6 calibrates itself, and a stick taken while glucose moves fast makes
        /// every later reading worse (docs/dexcom.md "Calibration").
        public var calibrateFromMeter: Bool
        /// How often the transmitter measures: 5 minutes for every G5 and G6 (CGMBLEKit and xDrip
        /// schedule their sessions so). Sessions are paced by it; a simulator may run faster.
        public var readingInterval: Duration

        public init(transmitterID: Dexcom.TransmitterID, backfillHours: Int = 3, listenOnly: Bool = false,
                    stepTimeout: Duration = .seconds(10), bondTimeout: Duration = .seconds(40),
                    backfillTimeout: Duration = .seconds(30), listenTimeout: Duration = .seconds(6 * 60),
                    keepAliveSeconds: UInt8 = 25, slot: Dexcom.Slot = .receiver, calibrateFromMeter: Bool = false,
                    readingInterval: Duration = .seconds(300)) {
            self.transmitterID = transmitterID
            self.backfillHours = min(max(backfillHours, 0), 24)
            self.listenOnly = listenOnly
            self.stepTimeout = stepTimeout
            self.bondTimeout = bondTimeout
            self.backfillTimeout = backfillTimeout
            self.listenTimeout = listenTimeout
            self.keepAliveSeconds = keepAliveSeconds
            self.slot = slot
            self.calibrateFromMeter = calibrateFromMeter
            self.readingInterval = readingInterval
        }
    }

    /// Where the session's procedure is; each stage waits under the session's one `Timer`.
    public enum Stage: Hashable, Sendable {
        case awaitingAuthChallenge
        case awaitingAuthStatus
        /// Keep-alive and bond request written, pairing requested.
        case awaitingBond
        /// Already bonded: waiting for the link to be encrypted with the stored key.
        case awaitingEncryption
        case awaitingControlSubscription
        case awaitingReply(to: Dexcom.ControlRequest)
        case awaitingCalibrationResult
        case awaitingBackfillSubscription
        case awaitingBackfill
        case listening
    }

    /// The deadline of the current stage: one step at a time, so one timer.
    public enum Timer: Hashable, Comparable, Sendable {
        case step
    }

    /// The transmitter's clock, learned from TransmitterTimeRx: dex time `currentTime` was
    /// true at monotonic `receivedAt` (docs/dexcom.md "Pacing").
    public struct DexClock: Hashable, Sendable {
        public var currentTime: Dexcom.DexTime
        public var receivedAt: MonotonicInstant

        /// The monotonic instant of a dex time (activation + t; CGMBLEKit `activationDate`).
        public func instant(of time: Dexcom.DexTime) -> MonotonicInstant {
            receivedAt + .seconds(Int64(time) - Int64(currentTime))
        }

        /// The dex time of a monotonic instant, or nil before activation or past the u32 range.
        public func dexTime(at instant: MonotonicInstant) -> Dexcom.DexTime? {
            let seconds = Int64(currentTime) + Int64(((instant - receivedAt).seconds).rounded(.down))
            return Dexcom.DexTime(exactly: seconds).flatMap { $0 == Dexcom.invalidDexTime ? nil : $0 }
        }
    }

    public static var profile: TransmitterProfile { DexcomProfile.profile }

    public let device: DeviceID
    public let configuration: Configuration
    public var session: DriverSession<Stage, Timer>

    // Kept across sessions (one driver serves every reconnection).
    /// Dex time of the last glucose reply received, for gap detection.
    public internal(set) var lastGlucoseTime: Dexcom.DexTime?
    /// A gap's start that a failed backfill left unfilled; retried next session.
    public internal(set) var unfilledGapStart: Dexcom.DexTime?
    /// True once a bond was made with this transmitter: a later "not bonded" means it was lost.
    public internal(set) var hasBonded = false
    public internal(set) var firmwareKnown = false
    /// A fingerstick waiting for the next session's calibration step.
    public internal(set) var pendingCalibration: (reference: GlucoseConcentration, takenAt: MonotonicInstant)?
    /// How long to wait before asking again a transmitter that had no new reading (it is late,
    /// or stuck on an old one): doubles up to the reading interval; nil (a tenth of the
    /// interval) again after a new reading.
    var staleRetry: Duration?

    // This session only.
    public internal(set) var clock: DexClock?
    /// From this session's TransmitterTimeRx; a backfill never reaches before it.
    public internal(set) var sessionStartTime: Dexcom.DexTime?
    public internal(set) var lastSensor: Dexcom.SensorRx?
    public internal(set) var lastCalibration: Dexcom.CalibrationDataRx?
    var token: [UInt8] = []
    /// What this session still has to do, in order (`SessionStep`).
    var steps: [SessionStep] = []
    /// Control requests sent this session: a late answer to one that timed out is still
    /// decoded, not taken for a stray message.
    var askedThisSession: Set<Dexcom.ControlRequest> = []
    /// A glucose reply newer than every earlier session's arrived this session.
    var newGlucoseThisSession = false
    var backfillWindow: (start: Dexcom.DexTime, end: Dexcom.DexTime)?
    var backfillBuffer = Dexcom.BackfillBuffer()
    var backfillBufferError: String?
    /// Dex times already turned into readings this session (live and backfilled).
    var emittedTimes: Set<Dexcom.DexTime> = []
    /// Dex time of the last reading emitted in an earlier session: backfill never repeats it.
    var previousSessionLastTime: Dexcom.DexTime?
    private let makeToken: @Sendable () -> [UInt8]

    /// `makeToken` supplies each session's single-use 8-byte token; the default draws it from
    /// the system's random generator, tests inject fixed tokens.
    public init(device: DeviceID, configuration: Configuration,
                makeToken: @escaping @Sendable () -> [UInt8] = DexcomDriver.randomToken) {
        self.device = device
        self.configuration = configuration
        self.makeToken = makeToken
        // Bonding is a step of the procedure (after authentication), not a cure the framework
        // applies to a refusal; a link that stays up is asked again to drop every step timeout.
        session = DriverSession(disconnectRetry: configuration.stepTimeout, pairsOnRefusal: false)
    }

    @Sendable public static func randomToken() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    var id: Dexcom.TransmitterID { configuration.transmitterID }

    // MARK: - SessionDriver

    public func incompatibility(_ discovered: DiscoveredServices) -> String? {
        Self.incompatibility(discovered, listenOnly: configuration.listenOnly)
    }

    public mutating func begin(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> (Stage, [DriverAction]) {
        clock = nil
        sessionStartTime = nil
        lastSensor = nil
        lastCalibration = nil
        steps = []
        askedThisSession = []
        newGlucoseThisSession = false
        backfillWindow = nil
        backfillBuffer = Dexcom.BackfillBuffer()
        backfillBufferError = nil
        emittedTimes = []
        previousSessionLastTime = lastGlucoseTime

        if configuration.listenOnly {
            session.schedule(.step, at: now + configuration.listenTimeout)
            // CCCD writes only: they configure our own link, not the transmitter's session.
            return (.listening, [.subscribe(DexcomProfile.authentication, indications: true),
                                 .subscribe(DexcomProfile.control, indications: true),
                                 .subscribe(DexcomProfile.backfill, indications: false)])
        }
        // Exactly 8 bytes whatever the source returns: the hash is defined on 8.
        token = Array((makeToken() + [UInt8](repeating: 0, count: 8)).prefix(8))
        session.schedule(.step, at: now + configuration.stepTimeout)
        return (.awaitingAuthChallenge,
                [.write(DexcomProfile.authentication, Dexcom.AuthRequestTx(token: token, slot: configuration.slot).bytes, withResponse: true)])
    }

    static func incompatibility(_ discovered: DiscoveredServices, listenOnly: Bool) -> String? {
        let service = DexcomProfile.cgmService
        guard let control = discovered.characteristic(DexcomProfile.control, in: service),
              let auth = discovered.characteristic(DexcomProfile.authentication, in: service)
        else { return "no Dexcom Control and Authentication characteristics in service \(service)" }
        guard control.properties.contains(.indicate) || control.properties.contains(.notify) else {
            return "Dexcom Control characteristic neither indicates nor notifies"
        }
        if !listenOnly {
            guard control.properties.contains(.write), auth.properties.contains(.write) else {
                return "Dexcom Control or Authentication characteristic is not writable"
            }
            guard auth.properties.contains(.read) || auth.properties.contains(.indicate) else {
                return "Dexcom Authentication characteristic can be neither read nor indicated"
            }
        }
        return nil
    }

    public mutating func handle(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        switch input {
        case let .value(uuid, bytes, _): receiveValue(uuid, bytes, at: now)
        case let .writeCompleted(uuid): writeCompleted(uuid, at: now)
        case let .subscribed(uuid): subscribed(uuid, at: now)
        case .encrypted: encrypted(at: now)
        case .disconnected, .operationFailed, .pairingFailed, .calibration: []  // the framework's
        }
    }

    public mutating func calibrate(_ reference: GlucoseConcentration, takenAt: MonotonicInstant, at now: MonotonicInstant) -> [DriverAction] {
        offerCalibration(reference, takenAt: takenAt, at: now)
    }

    public mutating func timerFired(_ timer: Timer, at now: MonotonicInstant) -> [DriverAction] {
        let seconds = { (d: Duration) in "\(Int(d.seconds)) s" }
        switch session.stage {
        case nil:
            return []
        case .awaitingAuthChallenge:
            return timedOut(.read(DexcomProfile.authentication), "no AuthChallengeRx (0x03) within \(seconds(configuration.stepTimeout))", at: now)
        case .awaitingAuthStatus:
            return timedOut(.read(DexcomProfile.authentication), "no AuthStatusRx (0x05) within \(seconds(configuration.stepTimeout))", at: now)
        case .awaitingBond:
            return [.emit(.pairingFailed(reason: "bonding did not finish within \(seconds(configuration.bondTimeout))"))]
                + stop(reason: "bonding timed out", at: now)
        case .awaitingEncryption:
            return [.emit(.pairingFailed(reason: "encryption did not finish within \(seconds(configuration.stepTimeout))"))]
                + stop(reason: "encryption timed out", at: now)
        case .awaitingControlSubscription:
            return timedOut(.subscribe(DexcomProfile.control), "Control subscription not confirmed within \(seconds(configuration.stepTimeout))", at: now)
        case let .awaitingReply(request) where request.isNeededForGlucose:
            return timedOut(.write(DexcomProfile.control), "no reply to \(request) within \(seconds(configuration.stepTimeout))", at: now)
        case let .awaitingReply(request):
            // Good to know, not needed: the session goes on without it.
            return [.emit(.operationFailed(.write(DexcomProfile.control), .other("no reply to \(request) within \(seconds(configuration.stepTimeout)); going on without it")))]
                + nextStep(at: now)
        case .awaitingCalibrationResult:
            return calibrationUnanswered(after: configuration.stepTimeout, at: now)
        case .awaitingBackfillSubscription:
            return timedOut(.subscribe(DexcomProfile.backfill), "Backfill subscription not confirmed within \(seconds(configuration.stepTimeout))", at: now)
        case .awaitingBackfill:
            // The live reading is already out; the gap stays recorded for the next session.
            unfilledGapStart = backfillWindow?.start
            return [.emit(.malformedValue(DexcomProfile.backfill, reason: "backfill stopped: \(backfillBuffer.frames.count) frame(s) and no completion (0x51) within \(seconds(configuration.backfillTimeout))"))]
                + nextStep(at: now)
        case .listening:
            let since = now - configuration.listenTimeout
            return [.emit(.noData(since: since, duration: configuration.listenTimeout))]
                + stop(reason: "listen-only: no glucose seen for \(seconds(configuration.listenTimeout))", at: now)
        }
    }

    // MARK: - Shared steps

    mutating func timedOut(_ operation: GATTOperation, _ what: String, at now: MonotonicInstant) -> [DriverAction] {
        [.emit(.operationFailed(operation, .other(what)))] + stop(reason: what, at: now)
    }

    /// Ends the session now (a failure): ask the host to drop the link, again every step
    /// timeout while it stays up.
    mutating func stop(reason: String, at now: MonotonicInstant) -> [DriverAction] {
        session.stop(reason: reason, at: now)
    }

    /// Moves to `stage`, which waits at most `timeout`.
    mutating func wait(in stage: Stage, for timeout: Duration, at now: MonotonicInstant) {
        session.enter(stage)
        session.schedule(.step, at: now + timeout)
    }

    /// Ends a session that did its work: Disconnect (0x09) on Control lets the transmitter
    /// drop the link itself and keep its 5-minute cycle (CGMBLEKit `disconnect()`). Dropping
    /// it from our side at once would race the write (seen against the Bumble rig), so the
    /// host is asked only if the link is still up after a short deadline. The app hears when
    /// the next reading is due, so that it does not connect again before.
    mutating func finish(at now: MonotonicInstant) -> [DriverAction] {
        session.leave(reason: "session complete", askingHostAt: now + .seconds(2))
        let pacing = nextSessionTime(at: now).map { [DriverAction.nextSession(notBefore: $0)] } ?? []
        return pacing + [.write(DexcomProfile.control, Dexcom.DisconnectTx().bytes, withResponse: false)]
    }
}

extension DexcomDriver {
    /// The registry entry: `dexcom [NAME] transmitter-id=81H0AB [backfill-hours=3] [listen-only=true]
    /// [slot=receiver|phone] [calibrate-from-meter=false] [reading-interval=5m]`.
    public static let transmitterType = TransmitterType(
        name: "dexcom",
        summary: "Dexcom G5/G6 transmitter (service F8083532-…, advertised 0xFEBC)",
        declaration: DexcomDriver.declaration,
        driver: DexcomDriver.self
    ) { (configuration) throws(TransmitterConfigurationError) -> DexcomDriver in
        try DexcomDriver(configuration)
    }

    /// A continuous glucose sensor that also reports its battery in volts. G6 sensors last 10
    /// days, G5 sensors 7, and the transmitter ID's first digit says which (`Dexcom.TransmitterID`).
    static let declaration = TransmitterDeclaration(category: .continuousGlucose, fuzzTarget: "dexcom", fuzzOptions: ["transmitter-id": "811234"],
                                                    extraAlarms: [.batteryVoltage]) { options in
        .seconds((options["transmitter-id"]?.hasPrefix("4") == true ? 7 : 10) * 24 * 3600)
    }

    /// Builds a driver from a configuration line's options, rejecting what cannot work.
    public init(_ configuration: TransmitterConfiguration) throws(TransmitterConfigurationError) {
        try configuration.rejectUnknownOptions(known: ["transmitter-id", "backfill-hours", "listen-only", "slot", "calibrate-from-meter",
                                                      "reading-interval"])
        func option(_ key: String) -> String? { configuration.options[key] }
        guard let text = option("transmitter-id") else {
            throw .invalidOption("transmitter-id", value: "", expected: "the 6-character ID printed on the transmitter")
        }
        let id: Dexcom.TransmitterID
        do {
            id = try Dexcom.TransmitterID(text)
        } catch {
            let expected = if case .fireflyUnsupported = error {
                "the ID of a G5 or of a G6 that authenticates with the AES challenge: \(error)"
            } else {
                "6 letters or digits starting with 4 (G5) or 8 (G6): \(error)"
            }
            throw .invalidOption("transmitter-id", value: text, expected: expected)
        }
        var hours = 3
        if let text = option("backfill-hours") {
            guard let value = Int(text), (0...24).contains(value) else {
                throw .invalidOption("backfill-hours", value: text, expected: "a whole number of hours from 0 to 24")
            }
            hours = value
        }
        func flag(_ key: String) throws(TransmitterConfigurationError) -> Bool {
            switch option(key) {
            case nil, "false", "no", "0": false
            case "true", "yes", "1": true
            case let text?: throw .invalidOption(key, value: text, expected: "true or false")
            }
        }
        let listenOnly = try flag("listen-only")
        var slot = Dexcom.Slot.receiver
        if let text = option("slot") {
            guard let chosen = Dexcom.Slot(name: text) else {
                throw .invalidOption("slot", value: text, expected: "\"receiver\" (the default: a phone app uses the other) or \"phone\"")
            }
            slot = chosen
        }
        let calibrate = try flag("calibrate-from-meter")
        if calibrate && listenOnly {
            throw .invalidOption("calibrate-from-meter", value: "true", expected: "false with listen-only = true: a listener never writes to the transmitter")
        }
        let interval = try configuration.duration("reading-interval", default: .seconds(300))
        guard interval >= .seconds(5), interval <= .seconds(900) else {
            throw .invalidOption("reading-interval", value: configuration.options["reading-interval"] ?? "",
                                 expected: "a duration from 5s to 15m (every G5 and G6 measures every 5m, the default)")
        }
        self.init(device: configuration.device,
                  configuration: Configuration(transmitterID: id, backfillHours: hours, listenOnly: listenOnly,
                                               slot: slot, calibrateFromMeter: calibrate, readingInterval: interval))
    }
}
