import Bluetooth
import Clocks
import Readings
import Wire

/// The session state machine for a Dexcom G7, ONE+ or Stelo sensor (profile in
/// `DexcomG7Profile`, messages in `DexcomG7`; docs/dexcom-g7.md, docs/protocols/dexcom-g7.md).
///
/// The sensor wakes every 5 minutes, is connectable for a few seconds and drops a link idle for
/// about 4 seconds, so every step answers at once. A session:
/// 1. Subscribes to Authentication and Certificate.
/// 2. First pairing (no key yet): the EC J-PAKE exchange keyed by the pairing code, three
///    rounds of 160-byte packets on Certificate, giving the 16-byte session key.
/// 3. The AES challenge with the session key. After a fresh exchange, a wrong answer from the
///    sensor means the pairing code is wrong ("pairing code rejected"); after a reconnect, the
///    stored key is stale and is dropped, so the next session pairs again with the code.
/// 4. First pairing only: the certificate exchange (the user's credentials file), the signed key
///    challenge, keep-alive, bond request, then LE pairing. Reconnects: encryption with the bond.
/// 5. Subscribes to Control and Backfill, asks (once per sensor) its serial, then glucose; a
///    backfill of the readings missed since the last one (capped at `backfillHours`); a waiting
///    fingerstick as a calibration; the session length and warm-up once.
/// 6. Leaves the link for the sensor to drop, and tells the app when the next reading is due.
///
/// Every step has a deadline; a needed step that times out, a refusal or an undecodable reply ends
/// the session with an event saying why, and the next cycle tries again. Readings carry their
/// `SensorStamp` (the sensor's serial and the sensor time they were measured at); one delivered
/// by an earlier session is never delivered again.
public struct DexcomG7Driver: SessionDriver {
    public struct Configuration: Hashable, Sendable {
        /// The 4-digit code printed on the sensor's applicator.
        public var pairingCode: String
        public var credentials: DexcomG7.Credentials
        public var displayType: DexcomG7.DisplayType
        /// How far back a backfill may reach (0 disables it; at most 24).
        public var backfillHours: Int
        /// Deadline for each request/reply step.
        public var stepTimeout: Duration
        /// Deadline for LE pairing or encryption.
        public var bondTimeout: Duration
        /// Deadline for a backfill's records and its end.
        public var backfillTimeout: Duration
        /// Send a meter's fingersticks to the sensor as calibrations. Off unless asked for: the
        /// G7 is factory calibrated.
        public var calibrateFromMeter: Bool
        /// How often the sensor measures: every 5 minutes for the whole family. A simulator may
        /// run faster.
        public var readingInterval: Duration

        public init(pairingCode: String, credentials: DexcomG7.Credentials, displayType: DexcomG7.DisplayType = .phone,
                    backfillHours: Int = 3, stepTimeout: Duration = .seconds(10), bondTimeout: Duration = .seconds(30),
                    backfillTimeout: Duration = .seconds(30), calibrateFromMeter: Bool = false,
                    readingInterval: Duration = .seconds(300)) {
            self.pairingCode = pairingCode
            self.credentials = credentials
            self.displayType = displayType
            self.backfillHours = min(max(backfillHours, 0), 24)
            self.stepTimeout = stepTimeout
            self.bondTimeout = bondTimeout
            self.backfillTimeout = backfillTimeout
            self.calibrateFromMeter = calibrateFromMeter
            self.readingInterval = readingInterval
        }
    }

    /// Where the session's procedure is; each stage waits under the one step timer.
    public enum Stage: Hashable, Sendable {
        case subscribingForAuthentication
        /// The sensor's J-PAKE packet of this round is arriving on Certificate.
        case exchangingKeys(round: UInt8)
        case awaitingChallengeReply
        case awaitingAuthStatus
        /// Our certificate `index` was announced; the sensor's own is arriving.
        case exchangingCertificate(index: UInt8)
        case awaitingCertificatesEnd
        case awaitingKeyChallenge
        case awaitingKeepAliveAcknowledgement
        case awaitingBondRequestAcknowledgement
        /// LE pairing requested after the bond request.
        case awaitingBond
        /// Bonded before: waiting for the link to be encrypted with the stored bond.
        case awaitingEncryption
        case subscribingForSession
        case awaitingReply(to: DexcomG7.Request)
        case awaitingBackfill
        case awaitingCalibrationResult
    }

    /// The deadline of the current stage: one step at a time, so one timer.
    public enum Timer: Hashable, Comparable, Sendable {
        case step
    }

    /// The sensor's clock, learned from a glucose message: the G6's dex clock, since sensor time
    /// is the same count (seconds since activation, u32).
    public typealias SensorClock = DexcomDriver.DexClock

    public static var profile: TransmitterProfile { DexcomG7Profile.profile }

    public let device: DeviceID
    public let configuration: Configuration
    public var session: DriverSession<Stage, Timer>

    // Kept across sessions (one driver serves every reconnection), and across restarts
    // (`persistentState`).
    /// The key agreed at pairing; nil until the first pairing, and again once the sensor stops
    /// honouring it.
    public internal(set) var sessionKey: [UInt8]?
    /// True once LE bonding finished with this sensor.
    public internal(set) var hasBonded = false
    /// The sensor's serial (TransmitterVersionRx), the run of every reading's stamp.
    public internal(set) var serialNumber: UInt64?
    public internal(set) var extendedVersionKnown = false
    /// Sensor time of the newest glucose measurement received, for gap detection.
    public internal(set) var lastMeasurementTime: DexcomG7.SensorTime?
    /// A gap a failed backfill left unfilled, retried next session.
    public internal(set) var unfilledGapStart: DexcomG7.SensorTime?
    public internal(set) var pendingCalibration: (reference: GlucoseConcentration, takenAt: MonotonicInstant)?
    var staleRetry: Duration?

    // This session only.
    public internal(set) var clock: SensorClock?
    /// Whether this session ran the key exchange (as opposed to using the stored key).
    var pairedThisSession = false
    var keyExchange: DexcomG7.KeyExchange?
    var sensorRounds: [[UInt8]] = []
    var candidateKey: [UInt8]?
    var token: [UInt8] = []
    /// The bytes arriving on Certificate for the current step.
    var certificateBuffer: [UInt8] = []
    var expectedCertificateLength: Int?
    var keyChallenge: [UInt8]?
    var awaitingSubscriptions: Set<BluetoothUUID> = []
    var steps: [SessionStep] = []
    var askedThisSession: Set<DexcomG7.Request> = []
    var newGlucoseThisSession = false
    var backfillWindow: (start: DexcomG7.SensorTime, end: DexcomG7.SensorTime)?
    var backfillRecords: [DexcomG7.BackfillRecord] = []
    var backfillError: String?
    var emittedTimes: Set<DexcomG7.SensorTime> = []
    var previousSessionLastTime: DexcomG7.SensorTime?
    let makeRandom: @Sendable (Int) -> [UInt8]

    /// `makeRandom` supplies the key exchange's scalars and the challenges' random bytes; the
    /// default draws them from the system's cryptographic generator, tests inject fixed ones.
    public init(device: DeviceID, configuration: Configuration,
                makeRandom: @escaping @Sendable (Int) -> [UInt8] = DexcomG7Driver.randomBytes) {
        self.device = device
        self.configuration = configuration
        self.makeRandom = makeRandom
        // Bonding is a step of the procedure, not a cure for a refusal; a link that stays up
        // after the session is asked again to drop every step timeout.
        session = DriverSession(disconnectRetry: configuration.stepTimeout, pairsOnRefusal: false)
    }

    /// `SystemRandomNumberGenerator` is the kernel's getrandom(2) on Linux: fit for key material.
    @Sendable public static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    // MARK: - SessionDriver

    public func incompatibility(_ discovered: DiscoveredServices) -> String? {
        let service = DexcomG7Profile.cgmService
        for (uuid, name) in [(DexcomG7Profile.control, "Control"), (DexcomG7Profile.authentication, "Authentication"),
                             (DexcomG7Profile.backfill, "Backfill"), (DexcomG7Profile.certificate, "Certificate")] {
            guard let characteristic = discovered.characteristic(uuid, in: service) else {
                return "no Dexcom G7 \(name) characteristic in service \(service) (a G6, or not a Dexcom)"
            }
            guard characteristic.properties.contains(.notify) || characteristic.properties.contains(.indicate) else {
                return "Dexcom G7 \(name) characteristic neither notifies nor indicates"
            }
        }
        return nil
    }

    public mutating func begin(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> (Stage, [DriverAction]) {
        clock = nil
        pairedThisSession = false
        keyExchange = nil
        sensorRounds = []
        candidateKey = nil
        certificateBuffer = []
        expectedCertificateLength = nil
        keyChallenge = nil
        steps = []
        askedThisSession = []
        newGlucoseThisSession = false
        backfillWindow = nil
        backfillRecords = []
        backfillError = nil
        emittedTimes = []
        previousSessionLastTime = lastMeasurementTime
        awaitingSubscriptions = [DexcomG7Profile.authentication, DexcomG7Profile.certificate]
        session.schedule(.step, at: now + configuration.stepTimeout)
        return (.subscribingForAuthentication,
                [.subscribe(DexcomG7Profile.authentication, indications: Self.prefersIndications(DexcomG7Profile.authentication, discovered)),
                 .subscribe(DexcomG7Profile.certificate, indications: false)])
    }

    /// Indications where the characteristic offers them (the sensor's framing messages are
    /// confirmed then), notifications otherwise.
    static func prefersIndications(_ uuid: BluetoothUUID, _ discovered: DiscoveredServices) -> Bool {
        discovered.characteristic(uuid, in: DexcomG7Profile.cgmService)?.properties.contains(.indicate) ?? false
    }

    public mutating func handle(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        switch input {
        case let .value(uuid, bytes, _): receiveValue(uuid, bytes, at: now)
        case let .subscribed(uuid): subscribed(uuid, at: now)
        case .encrypted: encrypted(at: now)
        case .writeCompleted, .disconnected, .operationFailed, .pairingFailed, .calibration: []
        }
    }

    public mutating func calibrate(_ reference: GlucoseConcentration, takenAt: MonotonicInstant, at now: MonotonicInstant) -> [DriverAction] {
        offerCalibration(reference, takenAt: takenAt, at: now)
    }

    public mutating func timerFired(_ timer: Timer, at now: MonotonicInstant) -> [DriverAction] {
        let step = "\(Int(configuration.stepTimeout.seconds)) s"
        switch session.stage {
        case nil:
            return []
        case .subscribingForAuthentication:
            return timedOut(.subscribe(DexcomG7Profile.authentication), "Authentication and Certificate subscriptions not confirmed within \(step)", at: now)
        case let .exchangingKeys(round):
            return timedOut(.write(DexcomG7Profile.authentication),
                            "the sensor's key-exchange packet \(round + 1) of 3 did not arrive within \(step) (\(certificateBuffer.count) of 160 bytes)", at: now)
        case .awaitingChallengeReply:
            return timedOut(.write(DexcomG7Profile.authentication), "no answer (0x03) to our challenge within \(step)", at: now)
        case .awaitingAuthStatus:
            return timedOut(.write(DexcomG7Profile.authentication), "no authentication status (0x05) within \(step)", at: now)
        case let .exchangingCertificate(index):
            return timedOut(.write(DexcomG7Profile.authentication),
                            "certificate \(index): the sensor's own certificate did not arrive within \(step) (\(certificateBuffer.count) bytes)", at: now)
        case .awaitingCertificatesEnd:
            return timedOut(.write(DexcomG7Profile.authentication), "the sensor did not acknowledge the end of the certificates within \(step)", at: now)
        case .awaitingKeyChallenge:
            return timedOut(.write(DexcomG7Profile.authentication), "the sensor's key challenge (0x0C) did not arrive within \(step)", at: now)
        case .awaitingKeepAliveAcknowledgement, .awaitingBondRequestAcknowledgement:
            return timedOut(.write(DexcomG7Profile.authentication), "the sensor did not acknowledge the bond request within \(step)", at: now)
        case .awaitingBond:
            return [.emit(.pairingFailed(reason: "bonding did not finish within \(Int(configuration.bondTimeout.seconds)) s"))]
                + stop(reason: "bonding timed out", at: now)
        case .awaitingEncryption:
            return [.emit(.pairingFailed(reason: "encryption with the bond did not finish within \(Int(configuration.bondTimeout.seconds)) s"))]
                + stop(reason: "encryption timed out", at: now)
        case .subscribingForSession:
            return timedOut(.subscribe(DexcomG7Profile.control), "Control and Backfill subscriptions not confirmed within \(step)", at: now)
        case let .awaitingReply(request) where request == .glucose:
            return timedOut(.write(DexcomG7Profile.control), "no reply to \(request) within \(step)", at: now)
        case let .awaitingReply(request):
            // Good to know, not needed: the session goes on without it.
            return [.emit(.operationFailed(.write(DexcomG7Profile.control), .other("no reply to \(request) within \(step); going on without it")))]
                + nextStep(at: now)
        case .awaitingBackfill:
            unfilledGapStart = backfillWindow?.start
            return [.emit(.malformedValue(DexcomG7Profile.backfill,
                                          reason: "backfill stopped: \(backfillRecords.count) record(s) and no end (0x59) within \(Int(configuration.backfillTimeout.seconds)) s; asked again next session"))]
                + nextStep(at: now)
        case .awaitingCalibrationResult:
            return [.emit(.operationFailed(.write(DexcomG7Profile.control), .other("no answer to the calibration (0x34) within \(step); sent again next session")))]
                + nextStep(at: now)
        }
    }

    // MARK: - Shared steps

    mutating func timedOut(_ operation: GATTOperation, _ what: String, at now: MonotonicInstant) -> [DriverAction] {
        [.emit(.operationFailed(operation, .other(what)))] + stop(reason: what, at: now)
    }

    mutating func stop(reason: String, at now: MonotonicInstant) -> [DriverAction] {
        session.stop(reason: reason, at: now)
    }

    /// Moves to `stage`, which waits at most `timeout` (the step timeout by default).
    mutating func wait(in stage: Stage, for timeout: Duration? = nil, at now: MonotonicInstant) {
        session.enter(stage)
        session.schedule(.step, at: now + (timeout ?? configuration.stepTimeout))
    }
}
